/** A one-line progress bar on a terminal; silent when the output is not a TTY (scripts, pipes, CI). */
interface Progress {
  update(done: number): void;
  finish(): void;
}

const WIDTH = 30;

/**
 * Draws `[#####.....] 50/100 label` on stderr, redrawn in place. `total` is an estimate (SQS counts are
 * approximate): the bar never passes 100 % and shows the count when it goes beyond.
 */
function progressBar(
  enabled: boolean,
  total: number,
  label: string,
  write = (text: string) => process.stderr.write(text),
): Progress {
  if (!enabled || total <= 0) return { update: () => {}, finish: () => {} };
  let drawn = false;
  const draw = (done: number) => {
    const filled = Math.min(WIDTH, Math.round((done / total) * WIDTH));
    write(`\r[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${done}/${Math.max(total, done)} ${label}`);
    drawn = true;
  };
  return {
    update: draw,
    finish: () => {
      if (drawn) write('\n');
    },
  };
}

export { type Progress, progressBar };
