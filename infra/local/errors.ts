/** Errors of the local stack. Each message says what to do next. */
import { leasefenceError } from '../../lib/errors.js';
import { localStartCommand } from './start-hint.js';

/** A port the local stack wants is taken by another process. */
class PortInUseError extends leasefenceError('local.port_in_use') {
  constructor(
    readonly port: number,
    readonly flag: string,
    readonly environmentVariable: string,
  ) {
    super(`port ${port} is in use; pass ${flag} <port> (or set ${environmentVariable}; 0 picks any free port)`);
  }
}

/** Another local stack already runs on this data folder (its state file names a live process). */
class StackAlreadyRunningError extends leasefenceError('local.stack_already_running') {
  constructor(
    readonly pid: number,
    readonly stateFile: string,
  ) {
    super(`a local stack is already running (pid ${pid}, ${stateFile}); stop it with Ctrl-C or: kill -INT ${pid}`);
  }
}

/** No local stack runs on this folder: no state file, or the process it names is gone. */
class LocalStackNotRunningError extends Error {
  constructor(readonly stateFile: string) {
    super(`no local stack is running (no live ${stateFile}); start one with \`${localStartCommand()}\``);
    this.name = 'LocalStackNotRunningError';
  }
}

export { LocalStackNotRunningError, PortInUseError, StackAlreadyRunningError };
