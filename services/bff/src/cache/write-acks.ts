/**
 * When this replica acknowledged recent writes, by the key their event will
 * carry (`producto:7:3`, `bodega:2:x` for a deletion, `operacion:9`), so the
 * follower can measure write-to-event delay. Bounded: the oldest are
 * forgotten (their events are then measured from the stream's timestamp).
 */
export class WriteAcks {
  private readonly at = new Map<string, number>();

  constructor(private readonly max = 4096) {}

  record(key: string): void {
    this.at.delete(key);
    this.at.set(key, performance.now());
    if (this.at.size > this.max) this.at.delete(this.at.keys().next().value as string);
  }

  /** The acknowledgement time (performance.now()) of the write with this key, forgotten once taken. */
  take(key: string): number | undefined {
    const at = this.at.get(key);
    if (at !== undefined) this.at.delete(key);
    return at;
  }
}
