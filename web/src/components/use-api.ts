/**
 * Loads one API answer for a tab and keeps it fresh: polled every `everyMs` while the tab is shown, with
 * the error of the last try (the server's message) kept beside the last good answer.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { get } from "../api";
import { errorText } from "../error-text";
import { pageMessages } from "../i18n";

export interface Loaded<T> {
  data: T | null;
  error: string | null;
  reload: () => Promise<void>;
}

export function useApi<T>(path: string, everyMs = 0): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const alive = useRef(true);
  const reload = useCallback(async () => {
    try {
      const answer = await get<T>(path);
      if (!alive.current) return;
      setData(answer);
      setError(null);
    } catch (err) {
      if (alive.current) setError(errorText(pageMessages(), err));
    }
  }, [path]);
  useEffect(() => {
    alive.current = true;
    void reload();
    const timer = everyMs > 0 ? setInterval(() => void reload(), everyMs) : undefined;
    return () => {
      alive.current = false;
      if (timer !== undefined) clearInterval(timer);
    };
  }, [reload, everyMs]);
  return { data, error, reload };
}
