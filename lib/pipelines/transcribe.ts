/**
 * Transcribing a job's recording, the step the video pipeline's transcript
 * branch and the audio pipeline's first stage share: the sound is taken from
 * the upload (read through a presigned GET, nothing else downloaded) as a
 * compact speech track in the function's /tmp, cut into pieces within the
 * provider's limits when long, each piece transcribed, and the words put back
 * on the recording's clock. The whole transcript is kept in the bucket
 * (transcript.json next to the upload); the caller stores the job row's share.
 *
 * Fail-soft: without a speech-to-text key, or when the provider keeps
 * failing, the outcome says so and the caller decides (a video goes on
 * visual-only; a voice note cannot).
 */
import { readFile, rm } from 'node:fs/promises';

import pLimit from 'p-limit';
import { presignedToolRead } from '../blob/client';
import { blobKeys } from '../blob/keys';
import { putJson, readObject } from '../blob/objects';
import { settings } from '../config';
import { SpeechToTextClient, SpeechToTextError } from '../integrations/speech-to-text';
import { segmentWords, stitchPieces, type TranscriptPiece } from '../integrations/transcript-stitching';
import type { Job } from '../jobs/job-record-rules';
import type { JobLog } from '../jobs/log-store';
import { audioPieces, extractAudioTrack } from '../media/audio-track';
import { makeWorkDir } from '../media/work-dirs';
import type { StoredTranscript } from './transcript-rules';

/**
 * Pieces of at most 20 minutes (about 3.6 MB of the speech track each): the
 * provider answers a piece well within the request timeout, and a failed
 * piece is retried without resending an hour of audio.
 */
const PIECE_LIMITS = { maxSeconds: 1200, maxBytes: 25 * 1024 * 1024, overlapSeconds: 2 };
/** Pieces sent to the provider at once. */
const PIECES_IN_FLIGHT = 3;
/** The presigned GET outlives the slowest extraction of a long upload's sound. */
const READ_URL_SECONDS = 3600;

export type TranscriptOutcome =
  | { kind: 'transcribed'; transcript: StoredTranscript; pieces: number }
  | { kind: 'no_audio' }
  | { kind: 'unconfigured'; reason: string }
  | { kind: 'failed'; reason: string };

const transcriptKey = (job: Pick<Job, 'team_id' | 'claim_id' | 'id'>) =>
  `${blobKeys.jobPrefix(job.team_id, job.claim_id, job.id)}transcript.json`;

/** The transcript document a run stored, or null (no speech, not configured, failed). */
export async function readTranscript(job: Pick<Job, 'team_id' | 'claim_id' | 'id'>): Promise<StoredTranscript | null> {
  const stored = await readObject(transcriptKey(job));
  return stored ? (JSON.parse(stored.body.toString('utf8')) as StoredTranscript) : null;
}

export async function transcribeRecording(job: Job, log: JobLog): Promise<TranscriptOutcome> {
  const client = SpeechToTextClient.fromSettings(settings());
  if (!client.configured) return { kind: 'unconfigured', reason: 'speech-to-text is not configured' };
  if (!job.media_key) throw new Error('the job has no uploaded file');
  const dir = await makeWorkDir('transcribe');
  try {
    // Beside frame extraction at normal priority: the provider's answer still takes seconds after the track is
    // made, so a track starved by the frames would make the transcript the branch the run waits for.
    const input = await presignedToolRead(job.media_key, READ_URL_SECONDS);
    const track = await extractAudioTrack({ input, dir });
    if (!track) return { kind: 'no_audio' };
    const pieces = await audioPieces(track, PIECE_LIMITS);
    await log.info(
      `Transcribing ${track.durationSeconds.toFixed(1)} s of sound in ${pieces.length} piece(s) with ${client.model}`,
    );
    const limit = pLimit(PIECES_IN_FLIGHT);
    const heard: TranscriptPiece[] = await Promise.all(
      pieces.map((piece) =>
        limit(async () => {
          const result = await client.transcribe({
            audio: await readFile(piece.path),
            contentType: 'audio/ogg',
            tag: job.id,
          });
          if (!result.configured) throw new Error(result.reason);
          const { text, words } = result.transcript;
          return { offset: piece.offsetSeconds, duration: piece.durationSeconds, text, words };
        }),
      ),
    );
    const stitched = stitchPieces(heard);
    const transcript: StoredTranscript = {
      text: stitched.text,
      duration: stitched.duration,
      segments: segmentWords(stitched.words),
    };
    await putJson(transcriptKey(job), transcript);
    return { kind: 'transcribed', transcript, pieces: pieces.length };
  } catch (err) {
    if (!(err instanceof SpeechToTextError)) throw err;
    return { kind: 'failed', reason: `${err.message} (after ${err.attempts} attempt(s))` };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
