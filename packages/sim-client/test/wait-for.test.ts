import { describe, expect, it } from 'vitest';
import { SimWaitTimeoutError, toMilliseconds, waitFor } from '../src/index';

describe('waitFor (polling)', () => {
  it('resolves with the first value that is not undefined, null or false', async () => {
    let calls = 0;
    const value = await waitFor(
      () => {
        calls++;
        return calls < 3 ? undefined : { ready: true };
      },
      { interval: 1 },
    );
    expect(value).toEqual({ ready: true });
    expect(calls).toBe(3);
  });

  it('resolves at once when the condition already holds, and keeps 0 and empty strings', async () => {
    expect(await waitFor(() => 0)).toBe(0);
    expect(await waitFor(async () => '')).toBe('');
  });

  it('retries while the check throws, and reports the last error on timeout', async () => {
    const error = await waitFor(
      () => {
        throw new Error('pool is PROVISIONING');
      },
      { timeout: 30, interval: 5, message: 'node pool to be RUNNING' },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SimWaitTimeoutError);
    expect((error as Error).message).toMatch(
      /^waitFor: node pool to be RUNNING not met within 30 \(\d+ attempts\); the last attempt threw: pool is PROVISIONING$/,
    );
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it('reports the last value on timeout', async () => {
    await expect(waitFor(() => false, { timeout: '10ms', interval: 2 })).rejects.toThrow(
      /condition not met within 10ms \(\d+ attempts\); the last attempt returned false/,
    );
  });

  it('stops when its signal aborts', async () => {
    const controller = new AbortController();
    controller.abort(new Error('test ended'));
    await expect(waitFor(() => undefined, { signal: controller.signal })).rejects.toThrow('test ended');
  });
});

describe('toMilliseconds', () => {
  it('reads the kernel’s duration grammar', () => {
    expect(toMilliseconds(250)).toBe(250);
    expect(toMilliseconds('1.5s')).toBe(1500);
    expect(toMilliseconds('2m30s')).toBe(150_000);
    expect(toMilliseconds('1d')).toBe(86_400_000);
    expect(() => toMilliseconds('soon')).toThrow(/invalid duration "soon"/);
    expect(() => toMilliseconds(-1)).toThrow(/must be >= 0/);
  });
});
