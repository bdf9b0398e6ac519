/**
 * The training curriculum: the missions a new adjuster works through on a
 * sandbox claim, in order, each with a short quiz and the checks that prove
 * the work was done. Read it like a syllabus. A check names a fact of the
 * training claim (training/rules.ts computes the facts from the claim's real
 * records, never from anything the client says) and the least it must reach.
 * Answers (`answer`, the index of the right choice) never leave the server.
 */

/** What the checks read from the training claim's records. */
export type TrainingFact =
  | 'rooms'
  | 'photo_jobs'
  | 'staged_photos'
  | 'grouped_photo_groups'
  | 'processed_jobs'
  | 'items'
  | 'edited_items'
  | 'approved_items'
  | 'archived_items'
  | 'undone_actions'
  | 'exports'
  | 'estimation_sends';

interface QuizQuestion {
  id: string;
  question: string;
  choices: string[];
  /** The index of the right choice: graded on the server, never sent. */
  answer: number;
  explanation: string;
}

interface MissionCheck {
  id: string;
  label: string;
  fact: TrainingFact;
  atLeast: number;
}

export interface Mission {
  key: string;
  title: string;
  summary: string;
  /** What to do, step by step, in the product. */
  steps: string[];
  points: number;
  checks: MissionCheck[];
  quiz: QuizQuestion[];
}

export const CURRICULUM: readonly Mission[] = [
  {
    key: 'rooms',
    title: 'Set up the claim',
    summary: 'A claim is organised by room: every photo, video and item belongs to one.',
    steps: ['Open your training claim.', 'Add two rooms, for example Kitchen and Living room.'],
    points: 50,
    checks: [{ id: 'two-rooms', label: 'The claim has at least two rooms', fact: 'rooms', atLeast: 2 }],
    quiz: [
      {
        id: 'rooms-1',
        question: 'Where do uploaded photos and videos belong?',
        choices: ['To the claim directly', 'To a room of the claim', 'To the team'],
        answer: 1,
        explanation: 'Uploads always go to a room; the room belongs to the claim.',
      },
      {
        id: 'rooms-2',
        question: 'What happens to a room you archive?',
        choices: [
          'It is deleted with its items',
          'It is hidden and can be brought back',
          'Its items move to another room',
        ],
        answer: 1,
        explanation: 'Archiving hides a room; unarchiving brings it back with everything in it.',
      },
    ],
  },
  {
    key: 'photos',
    title: 'Upload and group photos',
    summary: 'Photos of one object taken from several sides are grouped, so the AI sees them as one item.',
    steps: [
      'Upload at least three photos to a room.',
      'On the grouping screen, put two photos of the same object into one group.',
    ],
    points: 100,
    checks: [
      { id: 'three-photos', label: 'At least three photos were uploaded', fact: 'staged_photos', atLeast: 3 },
      { id: 'a-group', label: 'At least one group holds two or more photos', fact: 'grouped_photo_groups', atLeast: 1 },
    ],
    quiz: [
      {
        id: 'photos-1',
        question: 'Why group photos of the same object?',
        choices: [
          'To save storage',
          'So the AI lists it once, with every side in view',
          'Groups are required for videos',
        ],
        answer: 1,
        explanation: 'A group is read in one AI call, so the object becomes one item with all its photos.',
      },
      {
        id: 'photos-2',
        question: 'When are credits spent on photos?',
        choices: ['When they are uploaded', 'When the job is processed', 'When the items are exported'],
        answer: 1,
        explanation: 'Uploading and grouping are free; processing is priced from the groups and charged then.',
      },
    ],
  },
  {
    key: 'process',
    title: 'Process into items',
    summary: 'Processing turns the grouped photos into numbered inventory items.',
    steps: ['Check the quote of your photo job.', 'Process it and wait until it is complete.'],
    points: 100,
    checks: [
      { id: 'processed', label: 'A job was processed to completion', fact: 'processed_jobs', atLeast: 1 },
      { id: 'items', label: 'The claim has items', fact: 'items', atLeast: 1 },
    ],
    quiz: [
      {
        id: 'process-1',
        question: 'What does the quote tell you before processing?',
        choices: ['How long it will take', 'The exact credits it will cost', 'How many items will be found'],
        answer: 1,
        explanation: 'The quote is the exact credit cost; nothing is charged until you process.',
      },
    ],
  },
  {
    key: 'review',
    title: 'Review the items',
    summary: 'Every item is reviewed: corrected, approved or archived; a mistake can be undone.',
    steps: [
      'Edit an item (name, quantity or price).',
      'Approve an item.',
      'Archive an item you do not want.',
      'Undo one of your actions from the activity feed.',
    ],
    points: 150,
    checks: [
      { id: 'edited', label: 'An item was edited', fact: 'edited_items', atLeast: 1 },
      { id: 'approved', label: 'An item was approved', fact: 'approved_items', atLeast: 1 },
      { id: 'archived', label: 'An item was archived', fact: 'archived_items', atLeast: 1 },
      { id: 'undone', label: 'An action was undone', fact: 'undone_actions', atLeast: 1 },
    ],
    quiz: [
      {
        id: 'review-1',
        question: 'An item is flagged for review. What does that mean?',
        choices: ['It failed to save', 'The AI was not confident about it', 'It was sent already'],
        answer: 1,
        explanation: 'Low-confidence items are flagged so a person checks them first.',
      },
      {
        id: 'review-2',
        question: 'Where do you undo an edit?',
        choices: ['Nowhere: edits are final', 'In the activity feed', 'By processing the job again'],
        answer: 1,
        explanation: 'The activity feed lists undoable actions; undo restores the item as it was.',
      },
    ],
  },
  {
    key: 'export',
    title: 'Export the inventory',
    summary: 'Exports hand the inventory to anyone as a spreadsheet, CSV or report.',
    steps: ['Export the claim (or a job) to Excel or CSV and download it.'],
    points: 50,
    checks: [{ id: 'exported', label: 'An export was made', fact: 'exports', atLeast: 1 }],
    quiz: [
      {
        id: 'export-1',
        question: 'Which items does an "approved only" export contain?',
        choices: ['All items', 'Only approved items', 'Only archived items'],
        answer: 1,
        explanation: 'With approved only, unapproved and archived items are left out.',
      },
    ],
  },
  {
    key: 'send',
    title: 'Send to the estimation platform',
    summary: 'The reviewed inventory is sent on for pricing; in training this is a dry run.',
    steps: ['Send the claim’s items to the estimation platform (nothing leaves the sandbox).'],
    points: 100,
    checks: [{ id: 'sent', label: 'The claim was sent', fact: 'estimation_sends', atLeast: 1 }],
    quiz: [
      {
        id: 'send-1',
        question: 'What happens to items after a real send to the estimation platform?',
        choices: ['They are deleted', 'They are locked against edits', 'They are archived'],
        answer: 1,
        explanation: 'Sent items are frozen so the two systems agree; an admin can unlock them.',
      },
    ],
  },
];

/** Milestones, earned from missions and quizzes. */
export const BADGES = [
  { key: 'first-steps', title: 'First steps', description: 'Completed a first mission.' },
  { key: 'halfway', title: 'Halfway there', description: 'Completed half of the missions.' },
  { key: 'quiz-ace', title: 'Quiz ace', description: 'A perfect score on every quiz.' },
  { key: 'graduate', title: 'Graduate', description: 'Completed every mission.' },
] as const;

/**
 * What a training claim's photo groups become when processed: realistic
 * items, made at once without the AI (a training claim contacts no one and
 * costs nothing). Taken in turn, one per group.
 */
export const TRAINING_ITEMS = [
  { name: 'Three-seat fabric sofa', brand: 'Ikea', estimated_price: 899, condition: 'good' },
  { name: 'Arc floor lamp', brand: null, estimated_price: 149, condition: 'fair' },
  { name: 'Oak coffee table', brand: null, estimated_price: 320, condition: 'good' },
  { name: '55-inch LED television', brand: 'Samsung', estimated_price: 649, condition: 'good' },
  { name: 'Five-shelf bookcase', brand: 'Ikea', estimated_price: 120, condition: 'worn' },
  { name: 'Stand mixer', brand: 'KitchenAid', estimated_price: 429, condition: 'good' },
] as const;
