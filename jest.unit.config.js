/**
 * The unit layer of jest.config.js alone (`npm run test:unit`): a config file
 * rather than `--selectProjects unit`, whose list would also swallow the paths
 * given after it (`npm run test:unit -- services/bff`).
 * @type {import('jest').Config}
 */
const base = require('./jest.config.js');

module.exports = { ...base, projects: base.projects.filter((project) => project.displayName === 'unit') };
