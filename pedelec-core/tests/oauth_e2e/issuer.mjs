// A real OAuth 2.0 / OpenID Connect authorization server for `tests/oauth_e2e.rs`:
// `oidc-provider` (npm, installed by `cargo xtask mcp-clients` into
// target/mcp-clients/oidc), with the client credentials grant and resource indicators
// (RFC 8707), so that its access tokens are JWTs whose `aud` is the resource asked for.
//
//     node issuer.mjs PORT RESOURCE...
//
// Serves at http://127.0.0.1:PORT; client `pedelec-test` (secret `pedelec-secret`) may ask
// tokens for each RESOURCE with the scopes `counter:read counter:write`. Prints one JSON
// line (`{"issuer": …}`) once it listens. Its signing keys are made at start.

import crypto from "node:crypto";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [port, ...resources] = process.argv.slice(2);
const modules = path.resolve(process.env.OIDC_PROVIDER_NODE ?? ".", "node_modules");
const { default: Provider, errors } = await import(
  pathToFileURL(path.join(modules, "oidc-provider/lib/index.js")).href
);

const jwk = (type, options, alg) => {
  const { privateKey } = crypto.generateKeyPairSync(type, options);
  return { ...privateKey.export({ format: "jwk" }), alg, use: "sig", kid: `${alg}-${Date.now()}` };
};

const issuer = `http://127.0.0.1:${port}`;
const scope = "counter:read counter:write";
const provider = new Provider(issuer, {
  clients: [
    {
      client_id: "pedelec-test",
      client_secret: "pedelec-secret",
      grant_types: ["client_credentials"],
      redirect_uris: [],
      response_types: [],
      scope,
    },
  ],
  scopes: ["counter:read", "counter:write"],
  jwks: {
    keys: [
      jwk("rsa", { modulusLength: 2048 }, "RS256"),
      jwk("ec", { namedCurve: "P-256" }, "ES256"),
    ],
  },
  features: {
    clientCredentials: { enabled: true },
    devInteractions: { enabled: false },
    resourceIndicators: {
      enabled: true,
      getResourceServerInfo(_ctx, resourceIndicator) {
        if (!resources.includes(resourceIndicator)) {
          throw new errors.InvalidTarget();
        }
        return {
          scope,
          audience: resourceIndicator,
          accessTokenTTL: 300,
          accessTokenFormat: "jwt",
          jwt: { sign: { alg: "ES256" } },
        };
      },
    },
  },
});
// Plain HTTP on loopback is fine for a test.
provider.proxy = false;
const server = provider.listen(Number(port), "127.0.0.1", () => {
  console.log(JSON.stringify({ issuer }));
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
