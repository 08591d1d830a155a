/**
 * Issue 21, items 2 and 3: who runs the stock verification (src/verificaciones.ts).
 * One run at a time however many ask, and at most one more asked for
 * meanwhile; a request gets a verification begun
 * after it when that completes within its wait, else the last completed one;
 * a run begins no sooner than the last one's own duration after it ended;
 * a run that cannot complete is logged at error level, counted, and leaves
 * the last success (and its timestamp) as it was. Before the fix a
 * verification that could not complete was logged at debug level only and
 * every request ran its own.
 */
import { createLogger } from '@inventario/platform';
import { logLineSink } from '@inventario/testkit';
import type { Verificacion } from '../src/store/existencia-store';
import { createVerificaciones, type VerificacionHecha } from '../src/verificaciones';

const CONSISTENTE: Verificacion = { consistente: true, diferencias: [], nivelesVerificados: 3, bodegasVerificadas: 1 };

function capturedLogger() {
  const lines: { level: number; msg: string }[] = [];
  return { logger: createLogger('bodega-svc', 'debug', logLineSink(lines)), lines };
}

/** A verificar whose runs end when the test says so. */
function controlled() {
  const runs: { resolve: (v: Verificacion) => void; reject: (err: Error) => void }[] = [];
  const verificar = () => new Promise<Verificacion>((resolve, reject) => runs.push({ resolve, reject }));
  return { verificar, runs };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
/** A clock that does not move: every run takes 0 ms, so the next may begin at once. */
const frozen = () => 1_000;

test('six concurrent requests make two runs, not six: the first starts one, the other five share the next', async () => {
  const { verificar, runs } = controlled();
  const verificaciones = createVerificaciones(verificar, capturedLogger().logger, undefined, frozen);
  const answers = Promise.all(Array.from({ length: 6 }, () => verificaciones.ultima(60_000)));
  await tick();
  expect(runs).toHaveLength(1);
  runs[0]!.resolve({ ...CONSISTENTE, nivelesVerificados: 1 });
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(runs).toHaveLength(2);
  runs[1]!.resolve({ ...CONSISTENTE, nivelesVerificados: 2 });
  expect((await answers).map((v) => v?.nivelesVerificados)).toEqual([1, 2, 2, 2, 2, 2]);
  expect(runs).toHaveLength(2);
  await verificaciones.stop();
});

test('a request that arrives during a run waits for the next one, which is shared too; nothing else starts', async () => {
  const { verificar, runs } = controlled();
  const verificaciones = createVerificaciones(verificar, capturedLogger().logger, undefined, frozen);
  const first = verificaciones.ultima(60_000);
  await tick();
  const later = [verificaciones.ultima(60_000), verificaciones.ultima(60_000)];
  await tick();
  expect(runs).toHaveLength(1);
  runs[0]!.resolve({ ...CONSISTENTE, nivelesVerificados: 1 });
  expect((await first)?.nivelesVerificados).toBe(1);
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(runs).toHaveLength(2);
  runs[1]!.resolve({ ...CONSISTENTE, nivelesVerificados: 2 });
  expect((await Promise.all(later)).map((v) => v?.nivelesVerificados)).toEqual([2, 2]);
  await verificaciones.stop();
});

test('past its wait a request answers the last completed verification (undefined before the first)', async () => {
  const { verificar, runs } = controlled();
  const verificaciones = createVerificaciones(verificar, capturedLogger().logger, undefined, frozen);
  expect(await verificaciones.ultima(10)).toBeUndefined();
  runs[0]!.resolve(CONSISTENTE);
  await tick();
  const slow = verificaciones.ultima(10);
  const answer = await slow;
  expect(answer).toMatchObject(CONSISTENTE);
  await tick();
  runs.at(-1)!.resolve(CONSISTENTE);
  await verificaciones.stop();
});

test('a run that cannot complete is logged as an error and counted, and the last success stays', async () => {
  const { verificar, runs } = controlled();
  const { logger, lines } = capturedLogger();
  const completadas: VerificacionHecha[] = [];
  let fallidas = 0;
  const verificaciones = createVerificaciones(
    verificar,
    logger,
    {
      completada: (v) => completadas.push(v),
      fallida: () => fallidas++,
    },
    frozen,
  );
  const first = verificaciones.ultima(60_000);
  await tick();
  runs[0]!.resolve(CONSISTENTE);
  const exito = await first;
  const second = verificaciones.ultima(60_000);
  await new Promise((resolve) => setTimeout(resolve, 20));
  runs[1]!.reject(new Error('a statement ran past the database time limit; nothing was written'));
  expect(await second).toBe(exito);
  expect(completadas).toHaveLength(1);
  expect(fallidas).toBe(1);
  expect(lines).toContainEqual(expect.objectContaining({ level: 50, msg: 'stock verification could not complete' }));
  await verificaciones.stop();
});

test('differences found are logged as an error', async () => {
  const { verificar, runs } = controlled();
  const { logger, lines } = capturedLogger();
  const verificaciones = createVerificaciones(verificar, logger, undefined, frozen);
  const answer = verificaciones.ultima(60_000);
  await tick();
  runs[0]!.resolve({
    ...CONSISTENTE,
    consistente: false,
    diferencias: [{ tipo: 'NIVEL', bodegaId: 1, productoId: 2, registrado: 5, calculado: 0 }],
  });
  await answer;
  expect(lines).toContainEqual(expect.objectContaining({ level: 50, msg: 'stock differs from its ledger' }));
  await verificaciones.stop();
});

test('a run begins no sooner than the last one took, after it ended', async () => {
  let clock = 1_000;
  const { verificar, runs } = controlled();
  const verificaciones = createVerificaciones(verificar, capturedLogger().logger, undefined, () => clock);
  const first = verificaciones.ultima(60_000);
  await tick();
  clock += 300; // the run took 300 ms (of this fake clock)
  runs[0]!.resolve(CONSISTENTE);
  await first;
  // Asked at once: it sleeps the real 300 ms before it begins.
  const started = performance.now();
  const second = verificaciones.ultima(60_000);
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(runs).toHaveLength(1);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(runs).toHaveLength(2);
  expect(performance.now() - started).toBeGreaterThanOrEqual(250);
  runs[1]!.resolve(CONSISTENTE);
  await second;
  await verificaciones.stop();
});
