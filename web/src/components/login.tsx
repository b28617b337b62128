/**
 * The login view: shown whenever there is no session. The server's own message (wrong password, too many
 * tries) is shown as it comes; on success the parent gets the session with its CSRF token. The hint names
 * the file the password was written to, wherever the data folder is.
 */
import { useEffect, useState } from "preact/hooks";
import { login, loginInfo, type Session } from "../api";
import { errorText } from "../error-text";
import { fill, useT } from "../i18n";
import { ErrorLine } from "./status";

/** `error`: why the session could not be read (e.g. the daemon did not answer), shown until the first try. */
export function LoginView({ error: initial, onLogin }: { error?: string; onLogin: (session: Session) => void }) {
  const t = useT();
  const [user, setUser] = useState("admin");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(initial ?? null);
  const [pending, setPending] = useState(false);
  const [hint, setHint] = useState<string | null>(null);
  useEffect(() => {
    loginInfo()
      .then((info) =>
        setHint(info.credentialsFile ? fill(t.loginHint, { file: info.credentialsFile }) : t.loginHintRemote),
      )
      .catch(() => setHint(null));
  }, [t]);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setPending(true);
    try {
      onLogin(await login(user, password));
    } catch (err) {
      setError(errorText(t, err));
    } finally {
      setPending(false);
    }
  };

  return (
    <main class="login" id="main" tabIndex={-1}>
      <h1>{t.loginTitle}</h1>
      <form onSubmit={submit} class="card">
        <label for="login-user">{t.user}</label>
        <input
          id="login-user"
          name="username"
          autocomplete="username"
          required
          value={user}
          onInput={(e) => setUser(e.currentTarget.value)}
        />
        <label for="login-password">{t.password}</label>
        <input
          id="login-password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          autofocus
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <button type="submit" disabled={pending}>
          {pending ? t.loggingIn : t.loginButton}
        </button>
        <ErrorLine message={error} />
      </form>
      {hint && <p class="hint">{hint}</p>}
    </main>
  );
}
