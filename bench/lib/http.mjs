/** One-off HTTP requests for checks around the load (never the load itself). */
import { request as httpRequest } from "node:http";

export function request(method, url, { headers = {}, body, timeoutMs = 10_000 } = {}) {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method, agent: false, headers: { connection: "close", ...headers }, timeout: timeoutMs },
      (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode,
            headers: res.headers,
            rawHeaders: res.rawHeaders,
            body: Buffer.concat(chunks),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("timeout", () =>
      req.destroy(new Error(`${method} ${url}: no answer in ${timeoutMs} ms`)),
    );
    req.on("error", reject);
    req.end(body);
  });
}
