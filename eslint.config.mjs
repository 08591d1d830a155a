// One lint step for the whole monorepo (typescript-eslint, type-aware).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'proto/gen/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: ['./tsconfig.test.json'], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      'no-console': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read the environment in config.ts / main.ts only.' },
      ],
    },
  },
  {
    // Entry points and config modules are where the environment is read.
    files: ['**/src/main.ts', '**/src/*-main.ts', '**/src/config.ts', 'packages/testkit/src/**', '**/test/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // A private server inherits its owner's environment, with its own variables on top.
    files: ['packages/local-servers/src/private-server.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['**/test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { 'no-console': 'off', 'no-restricted-properties': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
  { files: ['**/*.mjs'], languageOptions: { sourceType: 'module' } },
);
