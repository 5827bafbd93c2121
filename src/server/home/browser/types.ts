/** The JSON the page reads: the control plane's shapes (docs/serve.md, the control plane) and a Pet. */

export interface HomeConfig {
  version: string;
  baseUrl: string;
  openApiUrl: string;
  adminUrl: string;
  petsUrl: string;
  keysUrl: string;
}

export interface ErrorBody {
  code: string;
  message: string;
  status: number;
}

export interface Health {
  status: string;
  pets: number;
  uptimeSeconds: number;
}

/** A key as GET /__home/keys gives it: in full (GET /__admin/keys redacts it). */
export interface KeyEntry {
  key: string;
  plan: string;
  limit: number;
  remaining: number;
  /** Unix seconds. */
  reset: number;
}

export interface JournalEntry {
  id: number;
  time: string;
  method: string;
  path: string;
  query: string;
  status: number | "reset";
  durationMs: number;
  plan: string | null;
  body?: string;
}

export interface Faults {
  latencyMs: { min: number; max: number } | null;
  failRate: number;
  failMode: string;
}

/** Ids and category ids are int64: kept as the digits sent, never rounded to a double. */
export interface Pet {
  id: string;
  name: string;
  categoryId: string;
  status?: string;
}
