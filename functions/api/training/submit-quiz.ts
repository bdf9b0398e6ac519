import { httpEndpoint } from '../../../lib/api/endpoint';
import { trainingRoutes } from '../../../lib/training/routes';
import { submitQuiz } from '../../../lib/training/service';

export const handler = httpEndpoint(trainingRoutes.quiz, ({ identity, params, body }) =>
  submitQuiz(identity, params.key, body.answers),
);
