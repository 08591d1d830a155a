import { deLista, esPermiso, esRol, type Asignacion, type PermisoEfectivo, type Principal } from '@inventario/contract';
import type { ClientUnaryCall, handleUnaryCall } from '@grpc/grpc-js';
import {
  AutenticarRequest,
  MetodoAuth,
  TipoUsuario,
  type AutenticarResponse,
  type IdentidadServiceClient,
  type IdentidadServiceServer,
} from '@inventario/proto';
import type { Credencial } from '../auth/credential-cache';
import type { Caller } from '../inventario/model';
import { required } from './mapping';
import type { UnaryCall, UnaryStarter } from './unary-call';

/**
 * What identidad-svc vouches for a credential: the principal, its bindings, and the principal signed for downstream
 * calls.
 */
export interface Autenticacion {
  principal: Principal;
  asignaciones: Asignacion[];
  /** Compact JWS for `x-inventario-principal`. */
  firmado: string;
  firmadoExpiraEn: Date;
}

/** The methods identidad-svc serves besides Autenticar, with their request and response messages. */
export type MetodoIdentidad = Exclude<keyof IdentidadServiceServer, 'autenticar'>;
type RequestOf<M extends MetodoIdentidad> =
  IdentidadServiceServer[M] extends handleUnaryCall<infer Req, unknown> ? Req : never;
type ResponseOf<M extends MetodoIdentidad> =
  IdentidadServiceServer[M] extends handleUnaryCall<never, infer Res> ? Res : never;

/** identidad-svc as the BFF calls it (docs/contract.md §12.1). */
export interface IdentidadClient {
  /**
   * UnauthenticatedError (platform) for any refused credential; ServicioNoDisponibleError when identidad-svc cannot
   * answer.
   */
  autenticar(credencial: Credencial, direccion: string, caller: Caller): Promise<Autenticacion>;
  /**
   * Any other method, on behalf of `caller` (its signed principal in the metadata): identidad-svc
   * reads the caller's rights itself at each call, so the BFF only translates.
   */
  llamar<M extends MetodoIdentidad>(
    caller: Caller,
    metodo: M,
    request: RequestOf<M>,
    onReplay?: () => void,
  ): Promise<ResponseOf<M>>;
}

const METODO = {
  [MetodoAuth.METODO_AUTH_PASSWORD]: 'password',
  [MetodoAuth.METODO_AUTH_TOKEN]: 'token',
  [MetodoAuth.METODO_AUTH_SYSTEM]: 'system',
} as const;

export function autenticacionFromProto(res: AutenticarResponse): Autenticacion {
  const p = required(res.principal, 'principal');
  const metodo = METODO[p.metodoAuth as keyof typeof METODO];
  if (metodo === undefined) throw new Error(`identidad-svc answered an unknown auth method ${p.metodoAuth}`);
  return {
    principal: {
      id: p.id,
      usuario: p.usuario,
      tipo: p.tipo === TipoUsuario.TIPO_USUARIO_SERVICIO ? 'SERVICIO' : 'HUMANO',
      metodoAuth: metodo,
      tokenId: p.tokenId ?? null,
      credencialVersion: p.credencialVersion,
      // A permission this build does not know grants nothing here.
      permisos: deLista(res.permisos.filter((e): e is PermisoEfectivo => esPermiso(e.permiso))),
    },
    // A role this build does not know grants nothing here (the permisos above are what counts).
    asignaciones: res.asignaciones.flatMap((a) => (esRol(a.rol) ? [{ rol: a.rol, bodegaId: a.bodegaId ?? null }] : [])),
    firmado: res.principalFirmado,
    firmadoExpiraEn: required(res.principalFirmadoExpiraEn, 'principalFirmadoExpiraEn'),
  };
}

export function createIdentidadClient(grpc: IdentidadServiceClient, call: UnaryCall): IdentidadClient {
  return {
    async autenticar(credencial, direccion, caller) {
      const request = AutenticarRequest.fromPartial({ ...credencial, direccion });
      const res = await call<AutenticarResponse>(caller, (md, opts, cb) => grpc.autenticar(request, md, opts, cb));
      return autenticacionFromProto(res);
    },
    llamar<M extends MetodoIdentidad>(caller: Caller, metodo: M, request: RequestOf<M>, onReplay?: () => void) {
      // The generated client has one overloaded method per RPC; this is its (request, metadata, options, callback)
      // form.
      type Start = (req: unknown, ...rest: Parameters<UnaryStarter<ResponseOf<M>>>) => ClientUnaryCall;
      const start = ((grpc as unknown as Record<string, Start>)[String(metodo)] as Start).bind(grpc);
      return call<ResponseOf<M>>(caller, (md, opts, cb) => start(request, md, opts, cb), onReplay);
    },
  };
}
