import type { Logger } from '@inventario/platform';
import {
  defaultFieldResolver,
  execute,
  getNullableType,
  GraphQLError,
  isCompositeType,
  isListType,
  isNonNullType,
  isObjectType,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import type { FieldResolver } from './context';
import type { GraphqlContext } from './context';
import { CLASSIFICATION } from './errors';

/**
 * What one request may cost while it runs (GRAPHQL_MAX_NODES, GRAPHQL_DEADLINE_MS), whatever the
 * estimate said: lists without `first` may be longer than it assumed.
 */
export interface ExecutionLimits {
  maxNodes: number;
  deadlineMs: number;
}

/**
 * A full `{ productos { id nombre } }` of 100,000 products still answers (the original clients
 * read whole lists); 10 s is twice the downstream deadline, so one slow call can be waited out.
 */
export const DEFAULT_EXECUTION_LIMITS: ExecutionLimits = { maxNodes: 100_000, deadlineMs: 10_000 };

/**
 * Once a limit is passed the request has failed: `failure` is the one error it answers with (no
 * data), and `signal` is aborted so work in flight can stop early.
 */
export interface ExecutionGuard {
  readonly signal: AbortSignal;
  readonly failure: GraphQLError | undefined;
  check(): void;
  count(nodes: number): void;
  remainingNodes(): number;
  msLeft(): number;
  /** The timer's way in, when no resolver is running to notice the deadline. */
  expire(): void;
}

export function nodeCapError(maxNodes: number): GraphQLError {
  return new GraphQLError(`La consulta supera el máximo de ${maxNodes} nodos de resultado: pida menos elementos con first y after`, {
    extensions: { classification: CLASSIFICATION.validation },
  });
}

export function deadlineError(deadlineMs: number): GraphQLError {
  return new GraphQLError(`La consulta superó su tiempo máximo de ejecución (${deadlineMs} ms)`, {
    extensions: { classification: CLASSIFICATION.deadlineExceeded },
  });
}

export function createExecutionGuard(limits: ExecutionLimits, now: () => number = Date.now): ExecutionGuard {
  const deadline = now() + limits.deadlineMs;
  const controller = new AbortController();
  let nodes = 0;
  let failure: GraphQLError | undefined;

  const fail = (error: GraphQLError): GraphQLError => {
    if (!failure) {
      failure = error;
      controller.abort(error);
    }
    return failure;
  };

  return {
    signal: controller.signal,
    get failure() {
      return failure;
    },
    check() {
      if (failure) throw failure;
      if (now() >= deadline) throw fail(deadlineError(limits.deadlineMs));
    },
    count(resolved) {
      nodes += resolved;
      if (nodes > limits.maxNodes) throw fail(nodeCapError(limits.maxNodes));
    },
    remainingNodes: () => Math.max(0, limits.maxNodes - nodes),
    msLeft: () => Math.max(0, deadline - now()),
    expire() {
      fail(deadlineError(limits.deadlineMs));
    },
  };
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

function nodesIn(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  return value === null || value === undefined ? 0 : 1;
}

function guarded(resolve: FieldResolver, list: boolean, nonNull: boolean): FieldResolver {
  const counted = (guard: ExecutionGuard, value: unknown) => {
    guard.check();
    guard.count(nodesIn(value));
    return value;
  };
  return (source, args, context: GraphqlContext, info) => {
    const { guard } = context;
    // The request has failed and its data will be dropped: end this branch at no cost.
    if (guard.failure && (list || !nonNull)) return list ? [] : null;
    guard.check();
    const value = resolve(source, args, context, info);
    return isPromiseLike(value) ? value.then((resolved) => counted(guard, resolved)) : counted(guard, value);
  };
}

/**
 * Every field that yields result nodes checks the guard, so the cap and the deadline hold even when
 * every value is at hand and execution never yields to the event loop.
 */
export function limitExecution(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const nullable = getNullableType(field.type);
      const list = isListType(nullable);
      if (!list && !isCompositeType(nullable)) continue;
      field.resolve = guarded(field.resolve ?? defaultFieldResolver, list, isNonNullType(field.type));
    }
  }
  return schema;
}

/**
 * Answers with only the guard's error and `data: null` as soon as a limit is passed (a partial
 * result would look complete), even while a resolver still waits on a slow service.
 */
export function createLimitedExecute(logger: Logger): (args: ExecutionArgs) => ExecutionResult | Promise<ExecutionResult> {
  return (args) => {
    const { guard } = args.contextValue as GraphqlContext;
    const failed = (): ExecutionResult => {
      const error = guard.failure!;
      logger.warn({ operationName: args.operationName ?? undefined, reason: error.message }, 'GraphQL request stopped at its limit');
      return { data: null, errors: [error] };
    };
    const outcome = execute(args);
    if (!isPromiseLike(outcome)) return guard.failure ? failed() : outcome;
    return new Promise<ExecutionResult>((resolve, reject) => {
      let answered = false;
      const answer = (settle: () => void) => {
        if (answered) return;
        answered = true;
        clearTimeout(timer);
        guard.signal.removeEventListener('abort', onAbort);
        settle();
      };
      const onAbort = () => answer(() => resolve(failed()));
      const timer = setTimeout(() => guard.expire(), guard.msLeft());
      if (guard.signal.aborted) onAbort();
      else guard.signal.addEventListener('abort', onAbort, { once: true });
      outcome.then(
        (result) => answer(() => resolve(guard.failure ? failed() : result)),
        (err: unknown) => answer(() => reject(err instanceof Error ? err : new Error(String(err)))),
      );
    });
  };
}
