/**
 * The daemon's Auth as plugins reach it (sdk.auth, through PluginHost.auth): the same checks, in the SDK's
 * shapes. A session is looked up by its id alone, so a server holding only the cookie value can ask for
 * it and for its CSRF token; login refusals pass through untouched (AuthError with its code and
 * `retryAfterS`), so a server can answer 429 with Retry-After.
 */
import type { AuthSession } from "@homeagent/sdk";
import type { Auth, Session } from "../auth/auth.js";
import type { AuthHost } from "./sdk-impl.js";

export function authHost(auth: Auth): AuthHost {
  return {
    verifyApiKey: (key) => typeof key === "string" && auth.verifyApiKey(key),
    login: async (user, password, address) => toSdk(await auth.login(user, password, address)),
    session: (id) => {
      if (typeof id !== "string") return null;
      const session = auth.verifySession(id);
      return session ? toSdk(session) : null;
    },
    verifyCsrf: (id, token) => {
      if (typeof id !== "string" || typeof token !== "string") return false;
      const session = auth.verifySession(id);
      return session !== undefined && auth.verifyCsrf(session, token);
    },
    logout: (id) => typeof id === "string" && auth.logout(id),
    credentialsFile: () => auth.credentialsFile(),
  };
}

function toSdk(session: Session): AuthSession {
  const { id, user, csrf, createdAt, expiresAt } = session;
  return { id, user, csrf, createdAt, expiresAt };
}
