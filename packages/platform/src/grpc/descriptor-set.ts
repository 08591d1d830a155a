import { fromBinary, toBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';

/**
 * The files of a `buf build -o` set as compiled, for server reflection:
 * proto-loader's re-synthesis merges a package's files and drops imports, so
 * grpcurl and `buf curl` could not resolve the services.
 */
export function fileDescriptorProtosOf(set: Uint8Array): Buffer[] {
  return fromBinary(FileDescriptorSetSchema, set).file.map((file) =>
    Buffer.from(toBinary(FileDescriptorProtoSchema, file)),
  );
}
