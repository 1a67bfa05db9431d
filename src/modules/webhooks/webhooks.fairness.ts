/**
 * How a webhook worker shares its free slots between tenants and their endpoints, so that one
 * tenant's flood (a bulk import emits a `product.created` per product, to every subscribed
 * endpoint) never makes another tenant's deliveries wait behind it. Slots are given one at a time
 * (a round robin): each to the tenant with the fewest attempts in flight in this worker, counting
 * those already given, ties to the tenant waiting longest; within the tenant to its endpoint with
 * the fewest in flight, ties again to the oldest. Nobody gets more than it has ready, an endpoint
 * never more than its cap (`perEndpoint` unless `endpointCap` says otherwise) and a tenant never
 * more than `perTenant`, so a tenant that arrives while another holds its whole share finds a slot
 * at once.
 */

/** An endpoint with deliveries due, as the worker's look at the queue found it. */
export interface ReadyEndpoint {
  endpoint_id: string;
  tenant_id: string;
  /** When its oldest waiting delivery came due. */
  first_due: number;
  /** Its deliveries due and not leased (the look counts them only up to the per-endpoint cap). */
  ready: number;
}

export interface InFlight {
  endpoints: ReadonlyMap<string, number>;
  tenants: ReadonlyMap<string, number>;
}

export interface SlotLimits {
  /** Slots this worker has free. */
  free: number;
  perEndpoint: number;
  perTenant: number;
  /** An endpoint's own cap, instead of `perEndpoint`. */
  endpointCap?: (endpointId: string) => number;
}

/** How many deliveries to take from an endpoint. */
export interface Share {
  id: string;
  limit: number;
}

interface EndpointState {
  id: string;
  firstDue: number;
  used: number;
  left: number;
  given: number;
}

interface TenantState {
  id: string;
  firstDue: number;
  used: number;
  endpoints: EndpointState[];
}

/** Fewest in flight first, then the longest waiting, then by id (a stable order). */
function before(a: { used: number; firstDue: number; id: string }, b: typeof a): boolean {
  if (a.used !== b.used) return a.used < b.used;
  if (a.firstDue !== b.firstDue) return a.firstDue < b.firstDue;
  return a.id < b.id;
}

/** The endpoints to take deliveries from and how many of each, in the order the slots went. */
export function shareSlots(ready: readonly ReadyEndpoint[], inFlight: InFlight, limits: SlotLimits): Share[] {
  const tenants = new Map<string, TenantState>();
  for (const row of ready) {
    const used = inFlight.endpoints.get(row.endpoint_id) ?? 0;
    const cap = limits.endpointCap?.(row.endpoint_id) ?? limits.perEndpoint;
    const left = Math.min(row.ready, cap - used);
    if (left <= 0) continue;
    let tenant = tenants.get(row.tenant_id);
    if (!tenant) {
      tenant = {
        id: row.tenant_id,
        firstDue: row.first_due,
        used: inFlight.tenants.get(row.tenant_id) ?? 0,
        endpoints: [],
      };
      tenants.set(row.tenant_id, tenant);
    }
    tenant.firstDue = Math.min(tenant.firstDue, row.first_due);
    tenant.endpoints.push({ id: row.endpoint_id, firstDue: row.first_due, used, left, given: 0 });
  }

  const shares: EndpointState[] = [];
  for (let slot = 0; slot < limits.free; slot++) {
    let tenant: TenantState | undefined;
    for (const candidate of tenants.values()) {
      if (candidate.used >= limits.perTenant) continue;
      if (!candidate.endpoints.some((e) => e.left > 0)) continue;
      if (!tenant || before(candidate, tenant)) tenant = candidate;
    }
    if (!tenant) break;
    let endpoint: EndpointState | undefined;
    for (const candidate of tenant.endpoints) {
      if (candidate.left > 0 && (!endpoint || before(candidate, endpoint))) endpoint = candidate;
    }
    // The tenant was picked for having an endpoint with deliveries left.
    if (!endpoint) break;
    if (endpoint.given === 0) shares.push(endpoint);
    endpoint.given += 1;
    endpoint.left -= 1;
    endpoint.used += 1;
    tenant.used += 1;
  }
  return shares.map((e) => ({ id: e.id, limit: e.given }));
}
