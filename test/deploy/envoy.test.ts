/**
 * The Envoy front proxy: routes reach only defined clusters, retries only
 * for idempotent methods (POST only before the request reached a BFF),
 * local replies have the contract's error shape, ports (fixed at 8080, not
 * values), paths and timeouts agree with the chart and the BFF, and there
 * is one Envoy configuration: the chart's files/envoy.yaml (with its one
 * templated line), which deploy/envoy/envoy.yaml only links to.
 */
import { execFile } from 'node:child_process';
import { lstatSync, realpathSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parse } from 'yaml';
import { MAX_BODY_BYTES } from '../../services/bff/dist/http/http-errors';
import { loadConfig as loadBffConfig } from '../../services/bff/dist/config';
import { CHART, chartTemplate, chartValues, readText, readYaml, ROOT, templateObjects, valueAt } from './support/repo';

interface RetryPolicy {
  retry_on: string;
  retriable_status_codes?: number[];
  num_retries?: number;
  per_try_timeout?: string;
  retry_host_predicate?: { name: string }[];
}
interface Route {
  match: {
    path_separated_prefix?: string;
    prefix?: string;
    headers?: { name: string; string_match: { safe_regex?: { regex: string } } }[];
  };
  route?: { cluster: string; timeout?: string; retry_policy?: RetryPolicy };
  direct_response?: { status: number; body?: { inline_string?: string } };
  response_headers_to_add?: unknown[];
}
interface LocalReplyMapper {
  filter: {
    status_code_filter?: {
      comparison: { op: 'EQ' | 'GE' | 'LE'; value: { default_value: number; runtime_key: string } };
    };
  };
  body?: { inline_string: string };
  headers_to_add?: { header: { key: string; value: string }; append_action?: string }[];
  status_code?: number;
  body_format_override?: { json_format?: Record<string, string> };
}
interface HttpFilter {
  name: string;
  typed_config: Record<string, unknown>;
}
interface EnvoyConfig {
  admin: { address: { socket_address: { address: string; port_value: number } } };
  static_resources: {
    listeners: {
      address: { socket_address: { address: string; port_value: number } };
      filter_chains: { filters: { typed_config: Record<string, unknown> }[] }[];
    }[];
    clusters: {
      name: string;
      type: string;
      dns_refresh_rate: string;
      respect_dns_ttl?: boolean;
      load_assignment: {
        endpoints: {
          lb_endpoints: { endpoint: { address: { socket_address: { address: string; port_value: number } } } }[];
        }[];
      };
      health_checks: { interval: string; unhealthy_threshold: number; http_health_check: { path: string } }[];
      outlier_detection: Record<string, unknown>;
      typed_extension_protocol_options?: Record<
        string,
        {
          '@type': string;
          common_http_protocol_options?: { idle_timeout?: string };
          explicit_http_config?: Record<string, unknown>;
        }
      >;
    }[];
  };
}

const envoy = readYaml<EnvoyConfig>('deploy/envoy/envoy.yaml');
const [listener] = envoy.static_resources.listeners;
const hcm = listener?.filter_chains[0]?.filters[0]?.typed_config as {
  use_remote_address: boolean;
  xff_num_trusted_hops: number;
  route_config: { virtual_hosts: { routes: Route[] }[] };
  http_filters: HttpFilter[];
  access_log: { typed_config: { log_format: { json_format?: Record<string, string> } } }[];
  local_reply_config: { mappers: LocalReplyMapper[]; body_format?: unknown };
};
const routes = hcm.route_config.virtual_hosts.flatMap((v) => v.routes);
const clusters = envoy.static_resources.clusters;
const bffCluster = clusters.find((c) => c.name === 'bff');
const values = chartValues();
const bffDefaults = loadBffConfig({ BFF_USER: 'u', BFF_PASSWORD: 'p' });

/** Seconds of an Envoy duration (`5s`, `0.1s`). */
function seconds(duration: string | undefined): number {
  const m = /^(\d+(?:\.\d+)?)s$/.exec(duration ?? '');
  if (!m?.[1]) throw new Error(`not a duration: ${duration}`);
  return Number(m[1]);
}

/**
 * What Envoy sends for a local reply of `status` with `body`, per the
 * HCM's local_reply_config: the first mapper whose status filter matches
 * sets the body, adds headers, rewrites the status, and formats the body
 * (its body_format_override, else the top-level body_format); without a
 * match, the top-level body_format alone, or the reply unchanged.
 */
function localReply(status: number, body: string): { status: number; headers: Record<string, string>; body: string } {
  const config = hcm.local_reply_config;
  const matches = (m: LocalReplyMapper) => {
    const c = m.filter.status_code_filter?.comparison;
    if (!c) throw new Error('only status_code_filter mappers are modelled here');
    const v = c.value.default_value;
    return c.op === 'EQ' ? status === v : c.op === 'GE' ? status >= v : status <= v;
  };
  const mapper = config.mappers.find(matches);
  const headers: Record<string, string> = {};
  let text = body;
  let code = status;
  let format = config.body_format as LocalReplyMapper['body_format_override'] | undefined;
  if (mapper) {
    if (mapper.body) text = mapper.body.inline_string;
    for (const h of mapper.headers_to_add ?? []) headers[h.header.key.toLowerCase()] = h.header.value;
    code = mapper.status_code ?? status;
    format = mapper.body_format_override ?? format;
  }
  if (!format) return { status: code, headers, body: text };
  if (!format.json_format) throw new Error('only json_format is modelled here');
  const json = Object.fromEntries(
    Object.entries(format.json_format).map(([k, v]) => [
      k,
      v.replace('%LOCAL_REPLY_BODY%', text).replace('%RESPONSE_CODE%', String(code)),
    ]),
  );
  return { status: code, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(json) };
}

/** The HTTP methods a route's `:method` header match admits; undefined when it admits every method. */
function methodsOf(route: Route): string[] | undefined {
  const header = route.match.headers?.find((h) => h.name === ':method');
  if (!header) return undefined;
  const regex = new RegExp(header.string_match.safe_regex?.regex ?? '(?!)');
  return ['GET', 'HEAD', 'PUT', 'DELETE', 'POST', 'PATCH', 'OPTIONS'].filter((m) => regex.test(m));
}

describe('deploy/envoy/envoy.yaml', () => {
  it('is the file the chart mounts, one copy, but for the one line the chart sets', () => {
    // A symlink to the chart's file (a regular file, which Helm packages): no second copy to drift.
    expect(lstatSync(join(ROOT, 'deploy/envoy/envoy.yaml')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(CHART, 'files/envoy.yaml')).isFile()).toBe(true);
    expect(realpathSync(join(ROOT, 'deploy/envoy/envoy.yaml'))).toBe(realpathSync(join(CHART, 'files/envoy.yaml')));
    const template = chartTemplate('templates/envoy.yaml');
    expect(template).toContain('.Files.Get "files/envoy.yaml"');
    // The ConfigMap replaces exactly one line, which the file holds exactly once, and mounts (and checksums) the result.
    const placeholder = /\$placeholder := "([^"]+)\\n"/.exec(template)?.[1];
    expect(placeholder).toBe('xff_num_trusted_hops: 0');
    expect(readText('deploy/envoy/envoy.yaml').split(`${placeholder}\n`)).toHaveLength(2);
    expect(template).toContain(
      '{{- $config := replace $placeholder (printf "xff_num_trusted_hops: %d\\n" $hops) $file -}}',
    );
    expect(template).toContain('{{- $config | nindent 4 }}');
    expect(template).toContain('checksum/envoy: {{ $config | sha256sum }}');
  });

  it('takes the client address from the proxies the chart trusts, and the BFF trusts them plus Envoy', () => {
    expect(hcm.use_remote_address).toBe(true);
    expect(hcm.xff_num_trusted_hops).toBe(0);
    expect(valueAt(values, 'envoy.trustedProxyHops')).toBe(0);
    expect(chartTemplate('templates/envoy.yaml')).toContain('{{- $hops := $v.trustedProxyHops | int -}}');
    expect(chartTemplate('templates/bff.yaml')).toMatch(
      /- name: TRUST_PROXY_HOPS\n\s+value: \{\{ add 1 \(\.Values\.envoy\.trustedProxyHops \| int\) \| quote \}\}/,
    );
  });

  it("answers its own errors in the contract's shape, and leaves its readiness 200 alone", () => {
    const codes = {
      400: 'BAD_REQUEST',
      404: 'NOT_FOUND',
      408: 'REQUEST_TIMEOUT',
      413: 'PAYLOAD_TOO_LARGE',
      431: 'REQUEST_HEADERS_TOO_LARGE',
      503: 'SERVICE_UNAVAILABLE',
      504: 'GATEWAY_TIMEOUT',
    };
    // The catch-all route: its plain-text body becomes the message, exactly once.
    const catchAll = routes.find((r) => r.match.prefix === '/');
    expect(catchAll?.direct_response?.status).toBe(404);
    const notFound = localReply(404, catchAll?.direct_response?.body?.inline_string ?? '');
    expect(JSON.parse(notFound.body)).toEqual({ error: 'NOT_FOUND', mensaje: 'Ruta no encontrada' });
    expect(notFound.headers['content-type']).toBe('application/json');
    // /envoy/ready: the health-check filter's empty 200 goes out untouched.
    expect(localReply(200, '')).toEqual({ status: 200, headers: {}, body: '' });
    for (const [status, error] of Object.entries(codes)) {
      const reply = localReply(Number(status), 'upstream connect error');
      expect(reply.status).toBe(Number(status));
      expect(JSON.parse(reply.body)).toEqual({ error, mensaje: expect.stringMatching(/\S/) });
    }
    // Anything else at or above 400: still {error, mensaje}.
    for (const status of [401, 405, 429, 500, 501, 502])
      expect(JSON.parse(localReply(status, 'x').body)).toEqual({ error: 'PROXY_ERROR', mensaje: 'x' });
    // Envoy's 503 (no healthy BFF, overflow) carries Retry-After, as the contract requires.
    expect(Number(localReply(503, '').headers['retry-after'])).toBeGreaterThan(0);
    // The codes are the BFF's own.
    const bffCodes = readText('services/bff/README.md');
    for (const error of Object.values(codes)) expect(bffCodes).toContain(`\`${error}\``);
  });

  it("routes the health probes with a per-try timeout shorter than the route's", () => {
    for (const route of routes.filter(
      (r) => r.match.path_separated_prefix === '/actuator/health' && r.route?.retry_policy,
    )) {
      expect(
        seconds(route.route?.retry_policy?.per_try_timeout) * ((route.route?.retry_policy?.num_retries ?? 0) + 1),
      ).toBeLessThanOrEqual(seconds(route.route?.timeout) + 1);
    }
  });

  it('routes reference only defined clusters, and every route goes somewhere', () => {
    const names = clusters.map((c) => c.name);
    expect(routes.length).toBeGreaterThan(0);
    for (const route of routes) {
      if (route.route) expect(names).toContain(route.route.cluster);
      else expect(route.direct_response).toBeDefined();
    }
  });

  it('sends /api and /actuator/health to the BFF, with a timeout', () => {
    for (const prefix of ['/api', '/actuator/health']) {
      const matching = routes.filter((r) => r.match.path_separated_prefix === prefix);
      expect(matching.length).toBeGreaterThan(0);
      for (const r of matching)
        expect(r.route).toEqual(expect.objectContaining({ cluster: 'bff', timeout: expect.stringMatching(/^\d+s$/) }));
    }
  });

  it('retries only routes restricted to idempotent methods, and POST only when the request never reached a BFF', () => {
    const retried = routes.filter((r) => r.route?.retry_policy !== undefined);
    expect(retried.length).toBeGreaterThan(0);
    // Failures before the request was sent: a connection refused or timed out, a refused stream, a reset before the request.
    const neverReached = ['connect-failure', 'refused-stream', 'reset-before-request'];
    for (const route of retried) {
      const policy = route.route?.retry_policy as RetryPolicy;
      const methods = methodsOf(route) ?? ['GET', 'HEAD', 'PUT', 'DELETE', 'POST', 'PATCH', 'OPTIONS'];
      if (methods.some((m) => !['GET', 'HEAD', 'PUT', 'DELETE'].includes(m))) {
        expect(policy.retry_on.split(',').filter((c) => !neverReached.includes(c))).toEqual([]);
        expect(policy.retriable_status_codes).toBeUndefined();
      }
      // Another replica each time.
      expect(policy.retry_host_predicate?.map((p) => p.name)).toEqual(['envoy.retry_host_predicates.previous_hosts']);
      // A try never outlasts the route.
      if (policy.per_try_timeout) expect(seconds(policy.per_try_timeout)).toBeLessThan(seconds(route.route?.timeout));
    }
    // A POST to /api matches a route that replays it only when it never reached a BFF.
    const firstForPost = routes.find(
      (r) => r.match.path_separated_prefix === '/api' && (methodsOf(r)?.includes('POST') ?? true),
    );
    expect(firstForPost?.route?.retry_policy?.retry_on.split(',').sort()).toEqual([...neverReached].sort());
  });

  it('closes idle connections to the BFF before the BFF does, and re-resolves bff-headless every 5 s', () => {
    const options =
      bffCluster?.typed_extension_protocol_options?.['envoy.extensions.upstreams.http.v3.HttpProtocolOptions'];
    expect(options?.['@type']).toBe('type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions');
    expect(options?.explicit_http_config).toEqual({ http_protocol_options: {} });
    expect(seconds(options?.common_http_protocol_options?.idle_timeout) * 1000).toBeLessThan(
      bffDefaults.httpTimeouts.keepAliveMs,
    );
    expect(bffCluster?.type).toBe('STRICT_DNS');
    expect(bffCluster?.respect_dns_ttl).toBe(false);
    expect(seconds(bffCluster?.dns_refresh_rate)).toBe(5);
  });

  it('gives a terminating BFF replica a drain long enough for Envoy to drop it, within its grace period', () => {
    const hc = bffCluster?.health_checks[0];
    const dropMs =
      Math.max(seconds(hc?.interval) * (hc?.unhealthy_threshold ?? 0), seconds(bffCluster?.dns_refresh_rate)) * 1000;
    const shutdown = valueAt(values, 'bff.shutdown') as {
      drainMs: number;
      timeoutMs: number;
      terminationGracePeriodSeconds: number;
    };
    // A health check may have just passed when readiness goes DOWN: one more interval.
    expect(shutdown.drainMs).toBeGreaterThanOrEqual(dropMs + seconds(hc?.interval) * 1000);
    expect(shutdown.timeoutMs).toBeGreaterThan(shutdown.drainMs);
    expect(shutdown.terminationGracePeriodSeconds * 1000).toBeGreaterThan(shutdown.timeoutMs);
    const bff = chartTemplate('templates/bff.yaml');
    expect(bff).toMatch(/- name: SHUTDOWN_DRAIN_MS\n\s+value: \{\{ \$drainMs \| quote \}\}/);
    expect(bff).toMatch(/- name: SHUTDOWN_TIMEOUT_MS\n\s+value: \{\{ \$timeoutMs \| quote \}\}/);
    expect(bff).toContain('terminationGracePeriodSeconds: {{ $grace }}');
  });

  it('reaches the BFF through its headless Service, one DNS answer per pod', () => {
    expect(bffCluster?.load_assignment.endpoints[0]?.lb_endpoints[0]?.endpoint.address.socket_address.address).toBe(
      'bff-headless',
    );
    expect(chartTemplate('templates/bff.yaml')).toMatch(/name: bff-headless\n[\s\S]*clusterIP: None/);
  });

  it('health-checks the BFF on the readiness path the chart probes, and ejects outliers', () => {
    const path = bffCluster?.health_checks[0]?.http_health_check.path;
    expect(path).toBe('/actuator/health/readiness');
    expect(chartTemplate('templates/bff.yaml')).toContain(
      `readinessProbe:\n            httpGet: { path: ${path}, port: http }`,
    );
    expect(bffCluster?.outlier_detection).toEqual(expect.objectContaining({ base_ejection_time: expect.any(String) }));
  });

  it("refuses bodies over the BFF's own limit (1 MiB)", () => {
    const buffer = hcm.http_filters.find((f) => f.name === 'envoy.filters.http.buffer');
    expect(buffer?.typed_config.max_request_bytes).toBe(MAX_BODY_BYTES);
    expect(hcm.http_filters.at(-1)?.name).toBe('envoy.filters.http.router');
  });

  it('logs JSON to stdout and binds its admin interface to localhost only', () => {
    expect(Object.keys(hcm.access_log[0]?.typed_config.log_format.json_format ?? {})).toEqual(
      expect.arrayContaining(['status', 'path', 'duration_ms']),
    );
    expect(envoy.admin.address.socket_address.address).toBe('127.0.0.1');
  });
});

/** The fields of the chart's objects the port checks read. */
interface Port {
  name?: string;
  port?: number | string;
  containerPort?: number | string;
  targetPort?: number | string;
}
interface Probe {
  httpGet?: { port: number | string };
  tcpSocket?: { port: number | string };
  grpc?: { port: number | string };
}
interface Container {
  name: string;
  ports: Port[];
  env: { name: string; value?: string }[];
  startupProbe?: Probe;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
}
interface PolicyRule {
  from?: { podSelector?: { matchLabels?: Record<string, string> } }[];
  to?: { podSelector?: { matchLabels?: Record<string, string> } }[];
  ports: Port[];
}
interface K8sObject {
  kind: string;
  metadata: { name: string };
  spec: {
    ports?: Port[];
    template?: { spec: { containers: Container[] } };
    podSelector?: { matchLabels?: Record<string, string> };
    ingress?: PolicyRule[];
    egress?: PolicyRule[];
  };
}

describe("the ports Envoy listens on and calls, and the chart's", () => {
  const listenPort = listener?.address.socket_address.port_value;
  const upstream = bffCluster?.load_assignment.endpoints[0]?.lb_endpoints[0]?.endpoint.address.socket_address;
  const objects = (template: string) => templateObjects(chartTemplate(template)) as K8sObject[];
  const find = (list: K8sObject[], kind: string, name: string) => {
    const found = list.find((o) => o.kind === kind && o.metadata.name === name);
    if (!found) throw new Error(`no ${kind} ${name}`);
    return found;
  };
  const envoyObjects = objects('templates/envoy.yaml');
  const bffObjects = objects('templates/bff.yaml');
  const policies = objects('templates/networkpolicies.yaml');
  const container = (list: K8sObject[], name: string) =>
    find(list, 'Deployment', name).spec.template?.spec.containers.find((c) => c.name === name);
  const httpPort = (ports: Port[] | undefined) => ports?.find((p) => p.name === 'http');
  const selects = (name: string) => (peer: { podSelector?: { matchLabels?: Record<string, string> } }) =>
    peer.podSelector?.matchLabels?.['app.kubernetes.io/name'] === name;
  const portsOf = (rules: PolicyRule[] | undefined) => (rules ?? []).flatMap((r) => r.ports.map((p) => p.port));

  it("are fixed: 8080 to listen on, bff-headless:8080 (the BFF's default) to call, and no value can move them", () => {
    expect(listener?.address.socket_address).toEqual({ address: '0.0.0.0', port_value: 8080 });
    expect(upstream).toEqual({ address: 'bff-headless', port_value: 8080 });
    expect(upstream?.port_value).toBe(bffDefaults.port);
    expect(valueAt(values, 'envoy.port')).toBeUndefined();
    expect(valueAt(values, 'bff.port')).toBeUndefined();
    // A release that still sets the old values fails to render rather than ignoring them.
    for (const template of ['templates/envoy.yaml', 'templates/bff.yaml'])
      expect(chartTemplate(template)).toMatch(
        /\{\{- if hasKey \$v "port" \}\}\{\{ fail "[a-z]+\.port is no longer a value: /,
      );
  });

  it.each([
    ['envoy', () => envoyObjects, () => listenPort],
    ['bff', () => bffObjects, () => upstream?.port_value],
  ] as const)("%s: the container's `http` port, which every probe and every Service targets", (name, list, port) => {
    const c = container(list(), name);
    expect(httpPort(c?.ports)?.containerPort).toBe(port());
    const probes = [c?.startupProbe, c?.readinessProbe, c?.livenessProbe].filter((p): p is Probe => p !== undefined);
    expect(probes.length).toBeGreaterThan(0);
    for (const probe of probes) expect((probe.httpGet ?? probe.tcpSocket ?? probe.grpc)?.port).toBe('http');
    const services = list().filter((o) => o.kind === 'Service');
    expect(services.length).toBeGreaterThan(0);
    for (const service of services)
      expect([service.metadata.name, httpPort(service.spec.ports)?.targetPort]).toEqual([
        service.metadata.name,
        'http',
      ]);
  });

  it('the BFF is told to listen where Envoy calls it, and bff-headless serves that port', () => {
    expect(container(bffObjects, 'bff')?.env.find((e) => e.name === 'PORT')?.value).toBe(String(upstream?.port_value));
    expect(httpPort(find(bffObjects, 'Service', 'bff-headless').spec.ports)?.port).toBe(upstream?.port_value);
  });

  it("Envoy's Service port is the one setting (envoy.service.port), mapped to the listener", () => {
    expect(httpPort(find(envoyObjects, 'Service', 'envoy').spec.ports)?.port).toBe('{{ $v.service.port }}');
    expect(valueAt(values, 'envoy.service.port')).toEqual(expect.any(Number));
  });

  it('the NetworkPolicies open them: into Envoy, from Envoy to the BFF, into the BFF from Envoy', () => {
    const envoyPolicy = find(policies, 'NetworkPolicy', 'envoy');
    expect(envoyPolicy.spec.podSelector?.matchLabels?.['app.kubernetes.io/name']).toBe('envoy');
    expect(portsOf(envoyPolicy.spec.ingress)).toEqual([listenPort]);
    expect(portsOf(envoyPolicy.spec.egress?.filter((r) => r.to?.some(selects('bff'))))).toEqual([upstream?.port_value]);
    const bffPolicy = find(policies, 'NetworkPolicy', 'bff');
    expect(bffPolicy.spec.podSelector?.matchLabels?.['app.kubernetes.io/name']).toBe('bff');
    expect(portsOf(bffPolicy.spec.ingress?.filter((r) => r.from?.some(selects('envoy'))))).toEqual([
      upstream?.port_value,
    ]);
  });

  it('the NetworkPolicies let producto-svc and bodega-svc ask each other whether a record is gone (reconciliation), both ways', () => {
    // The services' policy is one template ranged over both, naming the other as $peer: no value renders it statically.
    const text = chartTemplate('templates/networkpolicies.yaml');
    const start = text.indexOf(
      '{{- range $component, $key := dict "producto-svc" "productoSvc" "bodega-svc" "bodegaSvc" }}',
    );
    const block = text.slice(start, text.indexOf('{{- end }}', start));
    expect(block).toContain('{{- $peer := ternary "bodega-svc" "producto-svc" (eq $component "producto-svc") }}');
    expect(block).toContain('{{- $peerKey := ternary "bodegaSvc" "productoSvc" (eq $component "producto-svc") }}');
    const ingress = block.slice(block.indexOf('ingress:'), block.indexOf('egress:'));
    const egress = block.slice(block.indexOf('egress:'));
    expect(ingress).toContain('(dict "root" $ "component" $peer)');
    expect(egress).toMatch(
      /\(dict "root" \$ "component" \$peer\) \| nindent 14 \}\}\n\s*ports:\n\s*- \{ protocol: TCP, port: \{\{ \(index \$\.Values \$peerKey\)\.grpcPort \}\} \}/,
    );
  });
});

describe("the Envoy pod's shutdown (templates/envoy.yaml)", () => {
  const template = chartTemplate('templates/envoy.yaml');
  const shutdown = valueAt(values, 'envoy.shutdown') as {
    preStopSleepSeconds: number;
    terminationGracePeriodSeconds: number;
  };

  it('runs an Envoy that knows reset-before-request (1.31 or later) and has bash for the hook (not distroless)', () => {
    expect(valueAt(values, 'envoy.image.repository')).toBe('envoyproxy/envoy');
    const [major, minor] = String(valueAt(values, 'envoy.image.tag')).replace(/^v/, '').split('.').map(Number);
    expect((major ?? 0) * 1000 + (minor ?? 0)).toBeGreaterThanOrEqual(1031);
  });

  it('sleeps in preStop, within a grace period that leaves Envoy time to exit', () => {
    expect(shutdown.preStopSleepSeconds).toBeGreaterThanOrEqual(15);
    expect(shutdown.terminationGracePeriodSeconds).toBeGreaterThan(shutdown.preStopSleepSeconds + 5);
    expect(template).toContain('terminationGracePeriodSeconds: {{ $grace }}');
    expect(template).toContain('sleep {{ $sleep }}');
  });

  it("fails Envoy's health check through its admin port first (a POST over bash's /dev/tcp: the image has no curl)", async () => {
    // The hook's command as Kubernetes would run it, pointed at a stand-in admin server.
    const block = /\n( +)lifecycle:\n[\s\S]*?\n(?=\1[a-z]+:|\s*\{\{)/.exec(template)?.[0] ?? '';
    const indent = /\n( +)lifecycle:/.exec(block)?.[1]?.length ?? 0;
    const hook = parse(
      block
        .split('\n')
        .map((l) => l.slice(indent))
        .join('\n')
        .replace('{{ $sleep }}', '0'),
    ) as { lifecycle: { preStop: { exec: { command: string[] } } } };
    const command = hook.lifecycle.preStop.exec.command;
    expect(command.slice(0, 2)).toEqual(['/bin/bash', '-c']);
    const admin = envoy.admin.address.socket_address;
    expect(command[2]).toContain(`/dev/tcp/${admin.address}/${admin.port_value}`);

    const requests: string[] = [];
    const server = createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.end('OK\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const script = (command[2] ?? '').replace(`/${admin.port_value}`, `/${port}`);
      const status = await new Promise<number | null>((resolve) => {
        execFile('/bin/bash', ['-c', script], { timeout: 10_000 }, (err) =>
          resolve(err ? (typeof err.code === 'number' ? err.code : -1) : 0),
        );
      });
      expect(status).toBe(0);
    } finally {
      server.close();
    }
    expect(requests).toEqual(['POST /healthcheck/fail']);
  });
});
