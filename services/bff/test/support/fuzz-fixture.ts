/**
 * What both fuzz suites run against: a whole test stack holding warehouses
 * 1..3 and products 1..4 (so small generated ids often hit a record), and a
 * write probe whose baseline a case must leave unchanged unless it was an
 * accepted write.
 */
import { startTestStack, type TestStack } from './stack';
import { createWriteProbe, type WriteProbe, type WriteSnapshot } from './write-probe';

export interface FuzzFixture {
  stack: TestStack;
  /** Every table and the stream as the last accepted write (or the seed) left them. */
  baseline: WriteSnapshot;
  /** After an accepted write: waits until its events are published, then takes the new baseline. */
  rebase(): Promise<void>;
  /** Every table and the stream now, to compare with `baseline`. */
  snapshot(): Promise<WriteSnapshot>;
  close(): Promise<void>;
}

/** Starts the stack under `label` and seeds it with names starting `namePrefix` and prices in steps of `precioStep`. */
export async function startFuzzFixture(label: string, namePrefix: string, precioStep: number): Promise<FuzzFixture> {
  const stack = await startTestStack(label);
  let probe: WriteProbe | undefined;
  try {
    for (const lugar of ['Norte', 'Sur', 'Este']) {
      const res = await stack.request('POST', '/api/bodegas', {
        body: { nombre: `${namePrefix} ${lugar}`, ubicacion: 'X', capacidad: 100 },
      });
      if (res.status !== 201) throw new Error(`seeding warehouse ${lugar} answered ${res.status}`);
    }
    for (let i = 1; i <= 4; i++) {
      const body = { nombre: `${namePrefix} ${i}`, precio: precioStep * i, cantidadEnStock: i, bodegaId: (i % 3) + 1 };
      const res = await stack.request('POST', '/api/productos', { body });
      if (res.status !== 201) throw new Error(`seeding product ${i} answered ${res.status}`);
    }
    probe = await createWriteProbe(stack);
    const writes = probe;
    const fixture: FuzzFixture = {
      stack,
      baseline: await writes.settledSnapshot(),
      async rebase() {
        fixture.baseline = await writes.settledSnapshot();
      },
      snapshot: () => writes.snapshot(),
      async close() {
        await writes.close();
        await stack.close();
      },
    };
    return fixture;
  } catch (err) {
    await probe?.close();
    await stack.close();
    throw err;
  }
}
