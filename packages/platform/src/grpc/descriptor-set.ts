import { fromBinary, toBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';

/**
 * The serialized FileDescriptorProtos of a binary FileDescriptorSet
 * (`buf build -o`), one per file, as compiled.
 *
 * Why: server reflection must answer with the files as compiled, each with
 * its own name and `dependency` list. proto-loader's
 * `loadFileDescriptorSetFromBuffer` re-synthesises them from protobufjs,
 * which merges every file of a package into one and drops the imports, so
 * reflection clients such as grpcurl and `buf curl` cannot resolve the services.
 */
export function fileDescriptorProtosOf(set: Uint8Array): Buffer[] {
  return fromBinary(FileDescriptorSetSchema, set).file.map((file) =>
    Buffer.from(toBinary(FileDescriptorProtoSchema, file)),
  );
}
