/**
 * The path × fault table of a fault-point test file whose faults are its own
 * (the homeowner round's maker, the engine's fan-out, a refund, ...), in the
 * form the ledger fault matrix prints (tests/support/fault-matrix.ts): a cell
 * is ok when its case passed armed (the fault injected and recovered) and
 * disarmed (its control). Printed after the file.
 */
type Side = 'armed' | 'disarmed';
type Cell = Partial<Record<Side, 'ok' | 'not'>>;

export function faultTable(title: string) {
  const cells = new Map<string, Cell>();
  const paths: string[] = [];
  const faults: string[] = [];
  const key = (path: string, fault: string) => `${path}|${fault}`;
  const note = (path: string, fault: string, side: Side, result: 'ok' | 'not') => {
    if (!paths.includes(path)) paths.push(path);
    if (!faults.includes(fault)) faults.push(fault);
    cells.set(key(path, fault), { ...cells.get(key(path, fault)), [side]: result });
  };
  afterAll(() => {
    const width = Math.max(4, ...paths.map((p) => p.length));
    const text = (cell: Cell | undefined) =>
      !cell
        ? 'not run'
        : cell.armed === 'ok' && cell.disarmed === 'ok'
          ? 'ok'
          : `not (armed ${cell.armed ?? '-'}, control ${cell.disarmed ?? '-'})`;
    const rows = paths.map(
      (p) => `${p.padEnd(width)} | ${faults.map((f) => text(cells.get(key(p, f))).padEnd(f.length)).join(' | ')}`,
    );
    console.log(
      [
        `${title} (ok: the fault injected and recovered, and its disarmed control, each passed):`,
        `${'path'.padEnd(width)} | ${faults.join(' | ')}`,
        ...rows,
      ].join('\n'),
    );
  });
  return {
    /** Runs one side of a cell, noting it 'not' until `run` resolves. */
    async cell<T>(path: string, fault: string, armed: boolean, run: () => Promise<T>): Promise<T> {
      const side: Side = armed ? 'armed' : 'disarmed';
      note(path, fault, side, 'not');
      const result = await run();
      note(path, fault, side, 'ok');
      return result;
    },
  };
}
