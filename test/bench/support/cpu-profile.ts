import { readFileSync } from 'node:fs';

/** One node of a V8 CPU profile (`node --cpu-prof`): a call frame and the nodes it called. */
interface ProfileNode {
  id: number;
  callFrame: { url: string; functionName: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

/** A V8 CPU profile: its call tree, and per sample the node that was running and the µs since the previous one. */
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** A profile read from its file, with its nodes by id and each node's caller, for walking a sample's stack. */
interface ProfileTree {
  profile: CpuProfile;
  nodes: Map<number, ProfileNode>;
  parents: Map<number, number>;
}

/** Reads a `.cpuprofile` file and indexes its call tree. Throws on a file that is not JSON. */
function readProfile(file: string): ProfileTree {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  return { profile, nodes, parents };
}

export { type CpuProfile, type ProfileNode, type ProfileTree, readProfile };
