/**
 * The Envoy front proxy: routes reach only defined clusters, retries only
 * for idempotent methods, ports and paths agree with the chart and the BFF,
 * and the chart ships exactly deploy/envoy/envoy.yaml.
 */
import { MAX_BODY_BYTES } from '../../services/bff/dist/http/http-errors';
import { loadConfig as loadBffConfig } from '../../services/bff/dist/config';
import { chartTemplate, chartValues, readText, readYaml, valueAt } from './support/repo';

interface Route {
  match: { path_separated_prefix?: string; prefix?: string; headers?: { name: string; string_match: { safe_regex?: { regex: string } } }[] };
  route?: { cluster: string; timeout?: string; retry_policy?: unknown };
  direct_response?: { status: number };
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
      load_assignment: { endpoints: { lb_endpoints: { endpoint: { address: { socket_address: { address: string; port_value: number } } } }[] }[] };
      health_checks: { http_health_check: { path: string } }[];
      outlier_detection: Record<string, unknown>;
    }[];
  };
}

const envoy = readYaml<EnvoyConfig>('deploy/envoy/envoy.yaml');
const [listener] = envoy.static_resources.listeners;
const hcm = listener?.filter_chains[0]?.filters[0]?.typed_config as {
  route_config: { virtual_hosts: { routes: Route[] }[] };
  http_filters: HttpFilter[];
  access_log: { typed_config: { log_format: { json_format?: Record<string, string> } } }[];
};
const routes = hcm.route_config.virtual_hosts.flatMap((v) => v.routes);
const clusters = envoy.static_resources.clusters;
const bffCluster = clusters.find((c) => c.name === 'bff');
const values = chartValues();
const bffDefaults = loadBffConfig({ BFF_USER: 'u', BFF_PASSWORD: 'p' });

/** The HTTP methods a route's `:method` header match admits; undefined when it admits every method. */
function methodsOf(route: Route): string[] | undefined {
  const header = route.match.headers?.find((h) => h.name === ':method');
  if (!header) return undefined;
  const regex = new RegExp(header.string_match.safe_regex?.regex ?? '(?!)');
  return ['GET', 'HEAD', 'PUT', 'DELETE', 'POST', 'PATCH', 'OPTIONS'].filter((m) => regex.test(m));
}

describe('deploy/envoy/envoy.yaml', () => {
  it('is the file the chart mounts, byte for byte', () => {
    expect(readText('deploy/helm/inventario/files/envoy.yaml')).toBe(readText('deploy/envoy/envoy.yaml'));
    expect(chartTemplate('templates/envoy.yaml')).toContain('.Files.Get "files/envoy.yaml"');
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
      for (const r of matching) expect(r.route).toEqual(expect.objectContaining({ cluster: 'bff', timeout: expect.stringMatching(/^\d+s$/) }));
    }
  });

  it('retries only routes restricted to idempotent methods, and POST is never retried', () => {
    const retried = routes.filter((r) => r.route?.retry_policy !== undefined);
    expect(retried.length).toBeGreaterThan(0);
    for (const route of retried) {
      const methods = methodsOf(route);
      expect(methods).toBeDefined();
      expect(methods?.filter((m) => !['GET', 'HEAD', 'PUT', 'DELETE'].includes(m))).toEqual([]);
    }
    // A POST to /api matches a route without retries before any other.
    const firstForPost = routes.find((r) => r.match.path_separated_prefix === '/api' && (methodsOf(r)?.includes('POST') ?? true));
    expect(firstForPost?.route?.retry_policy).toBeUndefined();
  });

  it('listens on the chart\'s Envoy port and reaches the BFF on its port, the BFF\'s default', () => {
    expect(listener?.address.socket_address).toEqual({ address: '0.0.0.0', port_value: valueAt(values, 'envoy.port') });
    const target = bffCluster?.load_assignment.endpoints[0]?.lb_endpoints[0]?.endpoint.address.socket_address;
    expect(target?.port_value).toBe(valueAt(values, 'bff.port'));
    expect(target?.port_value).toBe(bffDefaults.port);
    // The BFF's headless Service, one DNS answer per pod.
    expect(target?.address).toBe('bff-headless');
    expect(chartTemplate('templates/bff.yaml')).toMatch(/name: bff-headless\n[\s\S]*clusterIP: None/);
  });

  it('health-checks the BFF on the readiness path the chart probes, and ejects outliers', () => {
    const path = bffCluster?.health_checks[0]?.http_health_check.path;
    expect(path).toBe('/actuator/health/readiness');
    expect(chartTemplate('templates/bff.yaml')).toContain(`readinessProbe:\n            httpGet: { path: ${path}, port: http }`);
    expect(bffCluster?.outlier_detection).toEqual(expect.objectContaining({ base_ejection_time: expect.any(String) }));
  });

  it('refuses bodies over the BFF\'s own limit (1 MiB)', () => {
    const buffer = hcm.http_filters.find((f) => f.name === 'envoy.filters.http.buffer');
    expect(buffer?.typed_config.max_request_bytes).toBe(MAX_BODY_BYTES);
    expect(hcm.http_filters.at(-1)?.name).toBe('envoy.filters.http.router');
  });

  it('logs JSON to stdout and binds its admin interface to localhost only', () => {
    expect(Object.keys(hcm.access_log[0]?.typed_config.log_format.json_format ?? {})).toEqual(expect.arrayContaining(['status', 'path', 'duration_ms']));
    expect(envoy.admin.address.socket_address.address).toBe('127.0.0.1');
  });
});
