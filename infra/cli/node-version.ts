/** The oldest Node.js major the package supports: package.json `engines` (a unit test keeps the two equal). */
const MIN_NODE_MAJOR = 22;

/**
 * The warning the CLI prints when it runs on a Node.js older than `engines` allows (npm only warns at install,
 * and only with engine-strict), else undefined. Pure: the version comes from the caller.
 */
function nodeVersionWarning(version: string): string | undefined {
  const major = Number.parseInt(version.replace(/^v/, ''), 10);
  if (!Number.isFinite(major) || major >= MIN_NODE_MAJOR) return undefined;
  return `leasefence: warning: Node.js ${version} is older than leasefence supports (>= ${MIN_NODE_MAJOR}, as its engines field says, and the Lambda functions run nodejs${MIN_NODE_MAJOR}.x); some commands may fail: use Node.js ${MIN_NODE_MAJOR} or later`;
}

export { MIN_NODE_MAJOR, nodeVersionWarning };
