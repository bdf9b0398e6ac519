import { settings } from '../../../lib/config';
import {
  awaitingSubmit,
  stillUploading,
  boundBefore,
  fileCeilingProblem,
  homeownerPhotoGroups,
  itemCeilingProblem,
  linkCeilings,
  mediaFileProblem,
  photoFileProblem,
  typedRowFields,
} from '../../../lib/insured/draft-rules';

const MIB = 1024 * 1024;
const limits = {
  INSURED_MAX_FILE_MB: 80,
  INSURED_MAX_VIDEO_MB: 1500,
  INSURED_LINK_MAX_TOTAL_MB: 4000,
  INSURED_LINK_MAX_FILES: 2000,
  INSURED_LINK_MAX_ITEMS: 5000,
  INSURED_CHUNK_MB: 16,
};

describe('homeowner draft rules', () => {
  it('reads the ceilings from the settings, 0 or less turning one off, parts never under 5 MiB', () => {
    expect(linkCeilings(limits)).toEqual({
      photoBytes: 80 * MIB,
      mediaBytes: 1500 * MIB,
      totalBytes: 4000 * MIB,
      files: 2000,
      items: 5000,
      chunkBytes: 16 * MIB,
    });
    const off = linkCeilings({ ...limits, INSURED_MAX_FILE_MB: 0, INSURED_LINK_MAX_FILES: -1, INSURED_CHUNK_MB: 2 });
    expect(off.photoBytes).toBe(Number.POSITIVE_INFINITY);
    expect(off.files).toBe(Number.POSITIVE_INFINITY);
    expect(off.chunkBytes).toBe(5 * MIB);
    expect(linkCeilings({ ...limits, INSURED_CHUNK_MB: 0 }).chunkBytes).toBe(16 * MIB);
    // The defaults are the spec's.
    expect(linkCeilings(settings()).files).toBeGreaterThan(0);
  });

  it('takes photos by type or extension, sends videos to the chunked path, and caps a photo’s size', () => {
    const ceilings = { photoBytes: 100 };
    expect(photoFileProblem({ filename: 'a.jpg', content_type: 'image/jpeg', size: 100 }, ceilings)).toBeNull();
    expect(
      photoFileProblem({ filename: 'a.heic', content_type: 'application/octet-stream', size: 1 }, ceilings),
    ).toBeNull();
    expect(photoFileProblem({ filename: 'a.jpg', content_type: 'image/jpeg', size: 101 }, ceilings)).toMatchObject({
      status: 413,
      detail: expect.stringContaining('at most'),
    });
    expect(photoFileProblem({ filename: 'a.mp4', content_type: 'video/mp4', size: 1 }, ceilings)).toMatchObject({
      status: 415,
      detail: expect.stringContaining('uploads/init'),
    });
    expect(photoFileProblem({ filename: 'a.m4a', content_type: 'Audio/MP4', size: 1 }, ceilings)?.status).toBe(415);
    expect(
      photoFileProblem({ filename: 'list.pdf', content_type: 'application/pdf', size: 1 }, ceilings),
    ).toMatchObject({
      status: 415,
      detail: expect.stringContaining('list.pdf'),
    });
  });

  it('takes videos and voice notes by extension and caps their size', () => {
    const ceilings = { mediaBytes: 1000 };
    expect(mediaFileProblem({ kind: 'video', filename: 'walk.MOV', total_size: 1000 }, ceilings)).toBeNull();
    expect(mediaFileProblem({ kind: 'audio', filename: 'note.m4a', total_size: 1 }, ceilings)).toBeNull();
    expect(mediaFileProblem({ kind: 'video', filename: 'walk.mp4', total_size: 1001 }, ceilings)?.status).toBe(413);
    expect(mediaFileProblem({ kind: 'audio', filename: 'note.txt', total_size: 1 }, ceilings)).toMatchObject({
      status: 415,
      detail: expect.stringContaining('a voice note'),
    });
    expect(mediaFileProblem({ kind: 'video', filename: 'walk.mp3', total_size: 1 }, ceilings)?.detail).toContain(
      'a video',
    );
  });

  it('explains which ceiling a file or row passes, at its edge', () => {
    const ceilings = { files: 2, totalBytes: 10 * MIB, items: 1 };
    const usage = { bytes_reserved: 9 * MIB, files_count: 1, items_count: 0 };
    expect(fileCeilingProblem(usage, MIB, ceilings)).toBeNull();
    expect(fileCeilingProblem(usage, MIB + 1, ceilings)).toContain('10 MB in all (9 MB used');
    expect(fileCeilingProblem({ ...usage, files_count: 2 }, 1, ceilings)).toContain('limit of 2 files');
    expect(itemCeilingProblem(usage, ceilings)).toBeNull();
    expect(itemCeilingProblem({ ...usage, items_count: 1 }, ceilings)).toContain('limit of 1 typed items');
  });

  it('gives the bound a counter may hold before a conditional add, or none', () => {
    expect(boundBefore(10, 3)).toBe(7);
    expect(boundBefore(2, 5)).toBe(-3);
    expect(boundBefore(Number.POSITIVE_INFINITY, 1)).toBeNull();
  });

  it('groups photos by their note (case and spacing aside), one group per unnoted photo, split past the cap', () => {
    expect(homeownerPhotoGroups([], 5)).toEqual([]);
    expect(homeownerPhotoGroups(['Sofa', null, ' sofa ', '', 'Lamp', 'SOFA'], 5)).toEqual([0, 1, 0, 2, 3, 0]);
    // 7 photos of one note under a cap of 3: blocks of 3, 2, 2 in order.
    expect(homeownerPhotoGroups(Array(7).fill('Books'), 3, 10)).toEqual([10, 10, 10, 11, 11, 12, 12]);
  });

  it('submits only ready rows no earlier submit took', () => {
    const rows = [
      { id: 'a', status: 'ready', round: null },
      { id: 'b', status: 'pending', round: null },
      { id: 'c', status: 'ready', round: 1 },
    ];
    expect(awaitingSubmit(rows).map((r) => r.id)).toEqual(['a']);
  });

  it('leaves behind the files whose bytes are still arriving', () => {
    const files = [
      { id: 'a', status: 'ready', round: null },
      { id: 'b', status: 'pending', round: null },
      { id: 'c', status: 'open', round: null },
      { id: 'd', status: 'completing', round: null },
      { id: 'e', status: 'aborted', round: null },
      { id: 'f', status: 'open', round: 1 },
    ];
    expect(stillUploading(files).map((f) => f.id)).toEqual(['b', 'c', 'd']);
  });

  it('takes a typed row’s own fields for its item, nothing else', () => {
    const row = {
      id: 'r',
      round: 1,
      name: 'Bench',
      quantity: 2,
      brand: null,
      model: 'X',
      age: null,
      estimated_price: 5,
      notes: null,
    };
    expect(typedRowFields(row)).toEqual({
      name: 'Bench',
      quantity: 2,
      brand: null,
      model: 'X',
      age: null,
      estimated_price: 5,
      notes: null,
    });
  });
});
