import { dirname, join } from 'node:path';
import { Client, credentials, Metadata, type ClientDuplexStream, type ServiceError } from '@grpc/grpc-js';
import {
  loadFileDescriptorSetFromBuffer,
  loadSync,
  type MethodDefinition,
  type PackageDefinition,
  type ServiceDefinition,
} from '@grpc/proto-loader';
import { SERVICE_NAME } from '../src/app';
import { startTestService, type TestService } from './support/test-service';

// "A gRPC client using reflection can create and read a product": the test
// knows nothing of producto.proto; it asks the server (grpc.reflection.v1),
// builds a dynamic client from the descriptors it gets back, and uses it.

let svc: TestService;
let client: Client;

beforeAll(async () => {
  svc = await startTestService('producto_reflection');
  client = new Client(`127.0.0.1:${svc.app.grpcPort}`, credentials.createInsecure());
});

afterAll(async () => {
  client?.close();
  await svc?.close();
});

function serviceOf(pkg: PackageDefinition, name: string): ServiceDefinition {
  const definition = pkg[name];
  if (!definition || 'format' in definition) throw new Error(`${name} is not a service in the package definition`);
  return definition;
}

function methodOf(service: ServiceDefinition, name: string): MethodDefinition<object, object> {
  const method = service[name];
  if (!method) throw new Error(`no method ${name}`);
  return method;
}

/** The grpc.reflection.v1 proto shipped with @grpc/reflection (the server side of it). */
function reflectionService(): ServiceDefinition {
  const protoPath = join(
    dirname(require.resolve('@grpc/reflection')),
    '..',
    'proto',
    'grpc',
    'reflection',
    'v1',
    'reflection.proto',
  );
  return serviceOf(loadSync(protoPath, { oneofs: true }), 'grpc.reflection.v1.ServerReflection');
}

interface ReflectionResponse {
  listServicesResponse?: { service: Array<{ name: string }> };
  fileDescriptorResponse?: { fileDescriptorProto: Buffer[] };
  errorResponse?: { errorCode: number; errorMessage: string };
}

/** One ServerReflectionInfo stream: each question gets the next answer. */
function openReflection(): { ask(request: object): Promise<ReflectionResponse>; close(): void } {
  const method = methodOf(reflectionService(), 'ServerReflectionInfo');
  const stream: ClientDuplexStream<object, ReflectionResponse> = client.makeBidiStreamRequest(
    method.path,
    method.requestSerialize,
    method.responseDeserialize as (value: Buffer) => ReflectionResponse,
    new Metadata(),
    { deadline: Date.now() + 10_000 },
  );
  return {
    ask: (request) =>
      new Promise((resolve, reject) => {
        stream.once('data', resolve);
        stream.once('error', reject);
        stream.write(request);
      }),
    close: () => stream.end(),
  };
}

/** A FileDescriptorSet { repeated FileDescriptorProto file = 1 } from serialized files. */
function descriptorSet(files: Buffer[]): Buffer {
  const varint = (n: number): number[] => {
    const bytes: number[] = [];
    for (; n > 0x7f; n = Math.floor(n / 128)) bytes.push((n % 128) | 0x80);
    bytes.push(n);
    return bytes;
  };
  return Buffer.concat(files.map((file) => Buffer.concat([Buffer.from([0x0a, ...varint(file.length)]), file])));
}

function unary<Res>(method: MethodDefinition<object, object>, request: object): Promise<Res> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize as (value: Buffer) => Res,
      request,
      new Metadata(),
      { deadline: Date.now() + 10_000 },
      (err: ServiceError | null, res?: Res) =>
        err || res === undefined ? reject(err ?? new Error('no response')) : resolve(res),
    );
  });
}

/** Field names as in the descriptors (snake_case): descriptor-built types keep them. */
interface DynamicProducto {
  id: number;
  nombre: string;
  precio: string;
  cantidad_en_stock: number;
}

describe('server reflection (grpc.reflection.v1)', () => {
  it('lists inventario.v1.ProductoService among the services', async () => {
    const reflection = openReflection();
    try {
      const answer = await reflection.ask({ listServices: '*' });
      expect(answer.listServicesResponse?.service.map((s) => s.name)).toContain(SERVICE_NAME);
    } finally {
      reflection.close();
    }
  });

  it('gives a client enough to create and read a product with no compiled stubs', async () => {
    const reflection = openReflection();
    let files: Buffer[];
    try {
      const answer = await reflection.ask({ fileContainingSymbol: SERVICE_NAME });
      files = answer.fileDescriptorResponse?.fileDescriptorProto ?? [];
    } finally {
      reflection.close();
    }
    expect(files.length).toBeGreaterThan(0);

    const pkg = loadFileDescriptorSetFromBuffer(descriptorSet(files), { keepCase: true, longs: Number, oneofs: true });
    const service = serviceOf(pkg, SERVICE_NAME);

    const created = await unary<{ producto: DynamicProducto }>(methodOf(service, 'CreateProducto'), {
      nombre: 'Descubierto por reflexión',
      precio: '19.90',
      cantidad_en_stock: 3,
    });
    expect(created.producto.id).toBeGreaterThan(0);

    const read = await unary<{ producto: DynamicProducto }>(methodOf(service, 'GetProducto'), {
      id: created.producto.id,
    });
    expect(read.producto).toMatchObject({
      id: created.producto.id,
      nombre: 'Descubierto por reflexión',
      precio: '19.90',
      cantidad_en_stock: 3,
    });
  });
});
