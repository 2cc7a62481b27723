/**
 * Whether a process id names a running process (signal 0: nothing is sent). EPERM means it runs as another user,
 * which is alive too. Used for lock files and operation rows left by a process that may be gone.
 */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
