/**
 * The SDL's lines that are too long to read in place (issue 25, "readable at a glance"): each is interpolated into
 * `typeDefs` or `reservasTypeDefs` exactly where it stood, so the schema's descriptions are the same to the byte. A
 * block description's line keeps its own line breaks: only its one long line lives here.
 */
export const SDL = {
  productoCantidad:
    'Unidades en stock (cantidadEnStock en la API REST): el total de su libro de existencias, en ' +
    'todas las bodegas y sin ubicar. Al crear se registran como stock inicial; al actualizarla se registra ' +
    'un conteo (AJUSTE).',
  productoVersion:
    'Adición: 1 al crearse, +1 en cada escritura; pásela como version a una mutación para que solo se aplique ' +
    'sobre esta versión.',
  productoExistencias:
    'Adición: sus existencias en cada bodega que lo tiene, en orden de id de bodega; after es el cursor de la ' +
    'última bodega recibida.',
  movimientoInputMotivo:
    'transferirStock). motivo, si se indica, uno de los de su tipo (el primero por defecto): ENTRADA: ' +
    'RECEPCION, DEVOLUCION;',
  stockResponse:
    'Adición, resultado de las mutaciones de stock: si fallan, success es false y error empieza por el ' +
    'código de la API REST',
  queryMovimientos:
    'Adición: el libro de movimientos, de la línea más reciente a la más antigua. first (1..1000, 100 ' +
    'por defecto): líneas',
  mutationIdempotencyKey:
    'Adición en todas las mutaciones de escritura: idempotencyKey (1 a 255 caracteres ASCII visibles) hace segura ' +
    'la repetición: la misma clave con la misma petición devuelve el resultado guardado de la primera sin volver a ' +
    'ejecutarla; con otra petición, success false. version (eliminaciones, y escrituras de una existencia con la ' +
    'versión de la existencia) solo aplica la escritura sobre esa versión.',
  asignarExistencia:
    'Adición: fija en cantidad las unidades del producto en la bodega (una línea AJUSTE, motivo ' +
    'ASIGNACION). umbralMinimo:',
  retirarExistencia:
    'tenía esta bodega como bodegaId, se la quita. Falla si el producto no está en la bodega ni asignado ' +
    'ni con existencias.',
  cambiarUmbral:
    'Adición: cambia solo el umbral de stock bajo de una existencia (PATCH ' +
    '/api/bodegas/{id}/existencias/{productoId}): no',
  cambiarUmbralSinMovimiento:
    'mueve unidades ni escribe ninguna línea del libro; la versión de la existencia sube en uno. ' +
    'umbralMinimo es obligatorio:',
  estadoReserva:
    'Adición: el estado de una reserva, en el reloj de la base de datos (una ACTIVA vencida es EXPIRADA aunque ' +
    'nadie la haya barrido).',
  reservaResponse:
    'Adición: resultado de las mutaciones de reservas: si fallan, success es false y error empieza por el ' +
    'código de la API REST',
  queryReservas:
    'Adición: las reservas, las más recientes primero. first (1..1000, 100 por defecto); after: el ' +
    'siguienteCursor anterior.',
  consumirReserva:
    'Adición: consume una reserva, entera (sin input.lineas) o en parte (POST /api/reservas/{id}/consumo). ' +
    'version: la de la reserva.',
} as const;
