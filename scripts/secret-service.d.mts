/** Types of secret-service.mjs, for the tests that import it. */
export interface SecretService {
  /** DBUS_SESSION_BUS_ADDRESS of the bus. */
  readonly address: string;
  /** The variables a client on this bus needs. */
  readonly env: { DBUS_SESSION_BUS_ADDRESS: string };
  /**
   * Starts GNOME Keyring on the bus, its login keyring unlocked or (from an earlier start)
   * locked; or a Secret Service that hangs (owns its name, never answers).
   */
  startKeyring(state: "unlocked" | "locked" | "hung"): Promise<void>;
  stopKeyring(): Promise<void>;
  /** The key stored for `account`, as secret-tool reads it; undefined when there is none. */
  lookup(account: string): string | undefined;
  /** Removes it, as another program may. */
  clear(account: string): void;
  /** Ends the keyring and the bus. */
  close(): Promise<void>;
}

export function startSecretService(dir: string): Promise<SecretService>;
