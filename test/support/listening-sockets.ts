import { readdir, readFile, readlink } from 'node:fs/promises';

/** A TCP socket in LISTEN state: where it listens, and the process of the tree that holds it. */
interface TcpListener {
  address: string;
  port: number;
  pid: number;
}

/** A listening Unix domain socket of the tree: its path (empty for an abstract or unnamed one) and holder. */
interface UnixListener {
  path: string;
  pid: number;
}

/** Why sockets cannot be listed here (no Linux /proc), or undefined when they can. */
function socketListingMissing(): string | undefined {
  return process.platform === 'linux'
    ? undefined
    : `listening sockets are read from Linux /proc (this is ${process.platform})`;
}

/** `root` and every process descended from it, from the parent pid in each /proc/<pid>/stat. */
async function processTree(root: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // The command name (field 2) may hold spaces and parentheses: the fields after the last ')' are fixed.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (Number.isInteger(ppid)) parents.set(Number(entry), ppid);
  }
  const tree = [root];
  for (let index = 0; index < tree.length; index += 1) {
    for (const [pid, ppid] of parents) if (ppid === tree[index] && !tree.includes(pid)) tree.push(pid);
  }
  return tree;
}

/** The socket inodes each process holds open (/proc/<pid>/fd links of the form `socket:[inode]`). */
async function socketInodes(pids: readonly number[]): Promise<Map<string, number>> {
  const owners = new Map<string, number>();
  for (const pid of pids) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const link = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
      if (inode) owners.set(inode, pid);
    }
  }
  return owners;
}

/** IPv4 or IPv6 address of a /proc/net/tcp{,6} `local_address` (hex, in host byte order per 32-bit word). */
function decodeAddress(hex: string): string {
  const words = hex.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((word) => (word.match(/../g) ?? []).reverse().map((byte) => Number.parseInt(byte, 16)));
  if (bytes.length === 4) return bytes.join('.');
  const groups = Array.from({ length: 8 }, (_, index) =>
    (((bytes[index * 2] ?? 0) << 8) | (bytes[index * 2 + 1] ?? 0)).toString(16),
  );
  return groups.join(':');
}

/**
 * Every TCP socket in LISTEN state (st 0A) held by `root` or a descendant, over IPv4 and IPv6: the sockets a web
 * page could try to reach.
 */
async function tcpListenersOfTree(root: number): Promise<TcpListener[]> {
  const owners = await socketInodes(await processTree(root));
  const found: TcpListener[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const lines = (await readFile(table, 'utf8').catch(() => '')).split('\n').slice(1);
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      const [local, state, inode] = [fields[1], fields[3], fields[9]];
      if (!local || state !== '0A' || !inode) continue;
      const pid = owners.get(inode);
      if (pid === undefined) continue;
      const [address, port] = local.split(':') as [string, string];
      found.push({ address: decodeAddress(address), port: Number.parseInt(port, 16), pid });
    }
  }
  return found;
}

/** Every listening Unix domain socket (flag __SO_ACCEPTCON) held by `root` or a descendant. */
async function unixListenersOfTree(root: number): Promise<UnixListener[]> {
  const owners = await socketInodes(await processTree(root));
  const lines = (await readFile('/proc/net/unix', 'utf8').catch(() => '')).split('\n').slice(1);
  const found: UnixListener[] = [];
  for (const line of lines) {
    const fields = line.trim().split(/\s+/);
    const [flags, inode] = [fields[3], fields[6]];
    const pid = inode === undefined ? undefined : owners.get(inode);
    if (pid === undefined || flags === undefined || (Number.parseInt(flags, 16) & 0x10000) === 0) continue;
    found.push({ path: fields[7] ?? '', pid });
  }
  return found;
}

export {
  processTree,
  socketListingMissing,
  type TcpListener,
  tcpListenersOfTree,
  type UnixListener,
  unixListenersOfTree,
};
