import { describe, expect, it } from 'vitest';
import { queueUrlAccount } from '../../../infra/console/context.js';
import { checkJsonBody, checkLoopbackRequest, checkRequest, TOKEN_HEADER } from '../../../infra/console/guard.js';

const policy = { token: 't'.repeat(43), hosts: ['127.0.0.1:8790', 'localhost:8790'] };
const own = { host: '127.0.0.1:8790', [TOKEN_HEADER]: policy.token };

describe('console guard', () => {
  it.each([
    ['the page itself', 'GET', '/', { host: 'localhost:8790' }, true],
    ['an API read from the page', 'GET', '/api/counts', own, true],
    [
      'an action from the page',
      'POST',
      '/api/dlq/redrive',
      { ...own, origin: 'http://127.0.0.1:8790', 'sec-fetch-site': 'same-origin' },
      true,
    ],
    ['a page under a rebinding name', 'GET', '/', { host: 'evil.example:8790' }, false],
    ['no Host at all', 'GET', '/', {}, false],
    ['an action from another origin', 'POST', '/api/dlq/redrive', { ...own, origin: 'http://127.0.0.1:9999' }, false],
    ['an action from another site', 'POST', '/api/dlq/redrive', { ...own, 'sec-fetch-site': 'cross-site' }, false],
    ['an API read without the token', 'GET', '/api/counts', { host: '127.0.0.1:8790' }, false],
  ])('%s ▶ allowed: %s', (_name, method, path, headers, allowed) => {
    // act
    const verdict = checkRequest({ method, path, headers }, policy);

    // assert
    expect(verdict.ok).toBe(allowed);
  });

  it.each([
    ['an SDK call (no Origin, own Host)', 'POST', { host: '127.0.0.1:8000' }, true],
    ['the same call under localhost', 'POST', { host: 'localhost:8000' }, true],
    ['a URL typed into the address bar', 'GET', { host: '127.0.0.1:8000', 'sec-fetch-site': 'none' }, true],
    ['a page of another site', 'POST', { host: '127.0.0.1:8000', origin: 'http://evil.example' }, false],
    ['a cross-site request without Origin', 'GET', { host: '127.0.0.1:8000', 'sec-fetch-site': 'cross-site' }, false],
    ['another port of this machine', 'POST', { host: '127.0.0.1:8000', origin: 'http://127.0.0.1:3000' }, false],
    ['a rebinding name', 'POST', { host: 'evil.example:8000' }, false],
  ])('loopback guard: %s ▶ allowed: %s', (_name, method, headers, allowed) => {
    const verdict = checkLoopbackRequest(
      { method, path: '/', headers },
      { hosts: ['127.0.0.1:8000', 'localhost:8000'] },
    );

    expect(verdict.ok).toBe(allowed);
  });

  it.each([
    ['GET', undefined, true],
    ['POST', 'application/json', true],
    ['POST', 'Application/JSON; charset=utf-8', true],
    ['POST', 'text/plain;charset=UTF-8', false],
    ['POST', 'application/x-www-form-urlencoded', false],
    ['POST', undefined, false],
  ])('%s with content-type %s ▶ allowed: %s', (method, type, allowed) => {
    const headers = type === undefined ? {} : { 'content-type': type };

    expect(checkJsonBody({ method, path: '/dlq/redrive', headers })).toMatchObject({ ok: allowed });
  });

  it('names the AWS account and region of an SQS queue URL, and nothing for a local one', () => {
    // act / assert
    expect(queueUrlAccount('https://sqs.eu-west-1.amazonaws.com/123456789012/leasefence-jobs')).toEqual({
      account: '123456789012',
      region: 'eu-west-1',
    });
    expect(queueUrlAccount('http://127.0.0.1:9324/000000000000/leasefence-jobs')).toEqual({});
  });
});
