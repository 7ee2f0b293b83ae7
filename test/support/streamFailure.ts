/** Reads a stream to its end and returns the error it ended with, or 'no failure'. */
export async function failureOf(stream: AsyncIterable<unknown>): Promise<unknown> {
  try {
    for await (const _item of stream);
  } catch (error) {
    return error;
  }
  return 'no failure';
}
