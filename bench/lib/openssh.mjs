/**
 * OpenSSH client options every peer run of the benchmarks uses (ssh, scp, parallel-ssh): the bench's own
 * known_hosts checked strictly, no prompts, only the bench's key. Returned as `-o` pairs for ssh/scp; parallel-ssh
 * takes the values with `-O` (see `asPsshOptions`).
 */
export function opensshClientOptions({ knownHosts, key }) {
  return [
    '-o',
    `UserKnownHostsFile=${knownHosts}`,
    '-o',
    'StrictHostKeyChecking=yes',
    '-o',
    'BatchMode=yes',
    '-o',
    'IdentitiesOnly=yes',
    '-o',
    `IdentityFile=${key}`,
  ];
}

/** `-o K=V` pairs as parallel-ssh's `-O K=V`. */
export function asPsshOptions(opts) {
  return opts.flatMap((o, i) => (i % 2 === 1 ? ['-O', o] : []));
}
