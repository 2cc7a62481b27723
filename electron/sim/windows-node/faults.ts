/**
 * Scripted faults of a simulated Windows node. Output faults act in the command host (so SSH and WinRM both
 * see them); connection faults (`authFailure`, `hostKeyChange`) are read by the servers.
 */
export interface SimFaults {
  /** Stream stdout in chunks of `chunkBytes`, `delayMs` apart. */
  slowOutput?: { chunkBytes: number; delayMs: number };
  /** After this many stdout bytes, go silent and never exit (until the client gives up). */
  stallAfterBytes?: number;
  /** After this many stdout bytes, drop the connection (no exit status). */
  dropAfterBytes?: number;
  /** Every authentication attempt fails. */
  authFailure?: boolean;
  /** The SSH server presents a different host key than the one the node was registered with. */
  hostKeyChange?: boolean;
  /** Pad text outputs (files, logs) up to this many bytes. */
  hugeOutputBytes?: number;
  /** Put Windows-1252 bytes (invalid UTF-8) into text outputs, as a misconfigured console does. */
  nonUtf8?: boolean;
  /** Limit output faults to these script ids (default: all). */
  scripts?: string[];
}

/** Whether output faults apply to `scriptId`. */
export function faultApplies(faults: SimFaults, scriptId: string | null): boolean {
  if (!faults.scripts || faults.scripts.length === 0) return true;
  return scriptId !== null && faults.scripts.includes(scriptId);
}

/** Windows-1252 text that is not valid UTF-8: "Caf\xe9 \x93quoted\x94" as a cp1252 console writes it. */
export const CP1252_SAMPLE = Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x20, 0x93, 0x71, 0x75, 0x6f, 0x74, 0x65, 0x64, 0x94]);
