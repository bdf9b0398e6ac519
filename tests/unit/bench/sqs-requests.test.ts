import { queueUrlsThrough, sqsRequest } from '../../bench/ops/counting-proxy';

describe('sqsRequest', () => {
  it('reads the JSON protocol: action from X-Amz-Target, batch entries, queue from QueueUrl', () => {
    const body = JSON.stringify({
      QueueUrl: 'http://127.0.0.1:9324/000000000000/ops-photos',
      Entries: [{ Id: '1' }, { Id: '2' }, { Id: '3' }],
    });
    expect(sqsRequest({ 'x-amz-target': 'AmazonSQS.SendMessageBatch' }, body)).toEqual({
      action: 'SendMessageBatch',
      entries: 3,
      queue: 'ops-photos',
    });
    expect(sqsRequest({ 'x-amz-target': 'AmazonSQS.GetQueueUrl' }, '{"QueueName":"ops-exports"}')).toEqual({
      action: 'GetQueueUrl',
      entries: 1,
      queue: 'ops-exports',
    });
  });

  it('reads the query protocol: Action and the numbered batch entries of a form body', () => {
    const body =
      'Action=DeleteMessageBatch&QueueUrl=http%3A%2F%2Fh%2F0%2Fq1' +
      '&DeleteMessageBatchRequestEntry.1.Id=a&DeleteMessageBatchRequestEntry.1.ReceiptHandle=r' +
      '&DeleteMessageBatchRequestEntry.2.Id=b&DeleteMessageBatchRequestEntry.2.ReceiptHandle=s';
    expect(sqsRequest({}, body)).toEqual({ action: 'DeleteMessageBatch', entries: 2, queue: 'q1' });
    expect(sqsRequest({}, 'Action=SendMessage&QueueUrl=http%3A%2F%2Fh%2F0%2Fq2&MessageBody=x')).toEqual({
      action: 'SendMessage',
      entries: 1,
      queue: 'q2',
    });
  });
});

describe('queueUrlsThrough', () => {
  const proxy = 'http://127.0.0.1:5555';

  it('points the queue URLs of a JSON answer at the proxy', () => {
    expect(JSON.parse(queueUrlsThrough('{"QueueUrl":"http://127.0.0.1:9324/000000000000/q1"}', proxy))).toEqual({
      QueueUrl: `${proxy}/000000000000/q1`,
    });
    expect(
      JSON.parse(queueUrlsThrough('{"QueueUrls":["http://localhost:9324/0/q1","http://localhost:9324/0/q2"]}', proxy)),
    ).toEqual({ QueueUrls: [`${proxy}/0/q1`, `${proxy}/0/q2`] });
  });

  it('points those of an XML answer at the proxy too', () => {
    const xml = '<R><QueueUrl>http://127.0.0.1:9324/0/q1</QueueUrl><QueueUrl>http://127.0.0.1:9324/0/q2</QueueUrl></R>';
    expect(queueUrlsThrough(xml, proxy)).toBe(
      `<R><QueueUrl>${proxy}/0/q1</QueueUrl><QueueUrl>${proxy}/0/q2</QueueUrl></R>`,
    );
  });
});
