import { AlreadyExistsError } from '@inventario/platform';
import { seedLibro } from './libro-ejemplo';
import type { Bodega, BodegaInput } from '@inventario/contract';
import type { Caller, InventarioApi } from '../inventario/model';

/**
 * The sample data (docs/contract.md §4.3, §8.6), loaded only on request, through InventarioApi like
 * any other write, so every record created publishes its event: warehouses, products, and their
 * stock with a few operations of the ledger (./libro-ejemplo.ts).
 */

/**
 * `bodega` names one of BODEGAS_EJEMPLO. A sample product is created with no units: its units are
 * its sample levels (./libro-ejemplo.ts), each with the ledger line that set it, so its
 * cantidadEnStock, the ledger total (docs/contract.md §10.6), is what the sample ledger says.
 */
export interface ProductoEjemplo {
  nombre: string;
  descripcion: string;
  precio: string;
  bodega: string | null;
}

export const BODEGAS_EJEMPLO: readonly BodegaInput[] = [
  { nombre: 'Bodega Central', ubicacion: 'Madrid', capacidad: 5000 },
  { nombre: 'Almacén Norte', ubicacion: 'Bilbao', capacidad: 2000 },
  { nombre: 'Depósito Sur', ubicacion: 'Sevilla', capacidad: 1500 },
];

export const PRODUCTOS_EJEMPLO: readonly ProductoEjemplo[] = [
  {
    nombre: 'Tornillo hexagonal M6',
    descripcion: 'Caja de 100 tornillos de acero galvanizado',
    precio: '4.50',
    bodega: 'Bodega Central',
  },
  {
    nombre: 'Martillo de carpintero',
    descripcion: 'Mango de fibra de vidrio, 450 g',
    precio: '12.90',
    bodega: 'Bodega Central',
  },
  {
    nombre: 'Taladro percutor 750 W',
    descripcion: 'Con maletín y juego de brocas',
    precio: '89.99',
    bodega: 'Bodega Central',
  },
  { nombre: 'Destornillador de precisión', descripcion: 'Juego de 6 puntas', precio: '7.25', bodega: 'Almacén Norte' },
  { nombre: 'Cinta métrica 5 m', descripcion: 'Carcasa antigolpes con freno', precio: '6.40', bodega: 'Almacén Norte' },
  {
    nombre: 'Caja de herramientas',
    descripcion: 'Polipropileno, tres bandejas',
    precio: '24.95',
    bodega: 'Almacén Norte',
  },
  { nombre: 'Guantes de trabajo', descripcion: 'Talla única, piel y algodón', precio: '3.15', bodega: 'Depósito Sur' },
  { nombre: 'Llave inglesa 250 mm', descripcion: 'Acero al cromo vanadio', precio: '15.50', bodega: 'Depósito Sur' },
  { nombre: 'Nivel de burbuja 60 cm', descripcion: 'Aluminio, tres burbujas', precio: '11.00', bodega: null },
  { nombre: 'Escalera plegable de aluminio', descripcion: 'Cinco peldaños', precio: '59.00', bodega: null },
];

export interface SeedResult {
  bodegasCreadas: number;
  productosCreados: number;
  /** Levels set and operations of the sample ledger written. */
  operacionesCreadas: number;
}

/** As the database compares warehouse names ("almacen norte" is "Almacén Norte"). */
function clave(nombre: string): string {
  return nombre.trim().normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

async function ensureBodegas(
  inventario: InventarioApi,
  caller: Caller,
): Promise<{ ids: Map<string, number>; creadas: number }> {
  const ids = new Map<string, number>();
  const remember = (bodegas: readonly Bodega[]) => {
    for (const bodega of bodegas) ids.set(clave(bodega.nombre), bodega.id);
  };
  remember(await inventario.listBodegas(caller));
  let creadas = 0;
  for (const bodega of BODEGAS_EJEMPLO) {
    if (ids.has(clave(bodega.nombre))) continue;
    try {
      remember([await inventario.createBodega(caller, bodega)]);
      creadas++;
    } catch (err) {
      // Created meanwhile by someone else (names are unique): use theirs.
      if (!(err instanceof AlreadyExistsError)) throw err;
      remember(await inventario.listBodegas(caller));
    }
  }
  return { ids, creadas };
}

/**
 * A second run creates nothing. Product names are not unique, so two loads at once could both create
 * a product: loads are meant to be run one at a time, by a person.
 */
export async function seedSampleData(inventario: InventarioApi, caller: Caller): Promise<SeedResult> {
  const bodegas = await ensureBodegas(inventario, caller);
  const productos = new Map<string, number>();
  let productosCreados = 0;
  for (const producto of PRODUCTOS_EJEMPLO) {
    const existentes = await inventario.listProductos(caller, { q: producto.nombre });
    // The first by id, if several carry the name.
    const existente = existentes.find((p) => clave(p.nombre) === clave(producto.nombre));
    if (existente) {
      productos.set(clave(producto.nombre), existente.id);
      continue;
    }
    const creado = await inventario.createProducto(caller, {
      nombre: producto.nombre,
      descripcion: producto.descripcion,
      precio: producto.precio,
      cantidadEnStock: 0,
      bodegaId: producto.bodega === null ? null : (bodegas.ids.get(clave(producto.bodega)) ?? null),
    });
    productos.set(clave(producto.nombre), creado.id);
    productosCreados++;
  }
  const operacionesCreadas = await seedLibro(inventario, caller, {
    producto: (nombre) => productos.get(clave(nombre)),
    bodega: (nombre) => bodegas.ids.get(clave(nombre)),
  });
  return { bodegasCreadas: bodegas.creadas, productosCreados, operacionesCreadas };
}

function contar(n: number, singular: string, plural: string): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

export function describeSeedResult(result: SeedResult): string {
  if (result.bodegasCreadas === 0 && result.productosCreados === 0 && result.operacionesCreadas === 0) {
    return 'Los datos de ejemplo ya estaban cargados: no se creó nada';
  }
  return (
    `Datos de ejemplo cargados: ${contar(result.bodegasCreadas, 'bodega nueva', 'bodegas nuevas')}, ` +
    `${contar(result.productosCreados, 'producto nuevo', 'productos nuevos')} ` +
    `y ${contar(result.operacionesCreadas, 'operación nueva', 'operaciones nuevas')} en el libro de existencias`
  );
}
