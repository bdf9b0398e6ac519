/**
 * Splits a stream of concatenated JPEG images (ffmpeg's image2pipe output)
 * into single images. The markers are walked rather than searched for: header
 * segments are skipped by their stated length (an EXIF thumbnail's end marker
 * inside one is not the image's end), and inside entropy-coded data a 0xFF
 * byte is only a marker when not followed by 0x00 (stuffing) or a restart
 * marker. Memory holds at most the image being assembled.
 */

const SOI = 0xd8;
const EOI = 0xd9;
const SOS = 0xda;
const TEM = 0x01;

function isRestart(marker: number): boolean {
  return marker >= 0xd0 && marker <= 0xd7;
}

export class JpegSplitter {
  private buffer: Buffer = Buffer.alloc(0);
  /** Where scanning resumes in `buffer`. */
  private pos = 0;
  /** Inside entropy-coded data (after a start-of-scan header). */
  private inScan = false;

  /** Takes the next bytes and returns every image they complete. */
  push(chunk: Buffer): Buffer[] {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    const images: Buffer[] = [];
    for (let end = this.scan(); end > 0; end = this.scan()) {
      images.push(Buffer.from(this.buffer.subarray(0, end)));
      this.buffer = this.buffer.subarray(end);
      this.pos = 0;
      this.inScan = false;
    }
    return images;
  }

  /** Bytes of an image that never ended (a stream cut short); 0 when the stream ended cleanly. */
  get pendingBytes(): number {
    return this.buffer.length;
  }

  /** The end offset of a complete image at the start of the buffer, or 0 when more bytes are needed. */
  private scan(): number {
    const buf = this.buffer;
    if (this.pos === 0) {
      if (buf.length < 2) return 0;
      if (buf[0] !== 0xff || buf[1] !== SOI) throw new Error('frame stream is not a sequence of JPEG images');
      this.pos = 2;
    }
    while (this.pos + 1 < buf.length) {
      if (this.inScan) {
        const ff = buf.indexOf(0xff, this.pos);
        if (ff < 0 || ff + 1 >= buf.length) {
          this.pos = ff < 0 ? buf.length : ff;
          return 0;
        }
        const next = buf[ff + 1];
        if (next === 0x00 || isRestart(next) || next === 0xff) {
          this.pos = next === 0xff ? ff + 1 : ff + 2;
          continue;
        }
        this.inScan = false;
        this.pos = ff;
        continue;
      }
      if (buf[this.pos] !== 0xff) throw new Error('corrupt JPEG in frame stream');
      const marker = buf[this.pos + 1];
      if (marker === 0xff) {
        this.pos += 1;
      } else if (marker === EOI) {
        return this.pos + 2;
      } else if (isRestart(marker) || marker === TEM) {
        this.pos += 2;
      } else {
        if (this.pos + 4 > buf.length) return 0;
        const length = buf.readUInt16BE(this.pos + 2);
        if (this.pos + 2 + length > buf.length) return 0;
        this.pos += 2 + length;
        if (marker === SOS) this.inScan = true;
      }
    }
    return 0;
  }
}
