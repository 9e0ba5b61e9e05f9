import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A stack the loopback CloudFormation endpoint knows: its name and its outputs. */
interface FakeStack {
  name: string;
  outputs: Record<string, string>;
}

/** A running loopback CloudFormation endpoint: its URL, the DescribeStacks calls it answered, and how to stop it. */
interface CloudFormationServer {
  url: string;
  /** StackName of every DescribeStacks request received. */
  readonly described: string[];
  stop(): Promise<void>;
}

const XMLNS = 'http://cloudformation.amazonaws.com/doc/2010-05-15/';

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function describeStacksXml(stack: FakeStack): string {
  const outputs = Object.entries(stack.outputs)
    .map(
      ([key, value]) =>
        `<member><OutputKey>${escapeXml(key)}</OutputKey><OutputValue>${escapeXml(value)}</OutputValue></member>`,
    )
    .join('');
  return (
    `<DescribeStacksResponse xmlns="${XMLNS}"><DescribeStacksResult><Stacks><member>` +
    `<StackName>${escapeXml(stack.name)}</StackName>` +
    `<StackId>arn:aws:cloudformation:us-east-1:123456789012:stack/${escapeXml(stack.name)}/1</StackId>` +
    '<CreationTime>2026-01-01T00:00:00Z</CreationTime><StackStatus>CREATE_COMPLETE</StackStatus>' +
    `<Outputs>${outputs}</Outputs></member></Stacks></DescribeStacksResult>` +
    '<ResponseMetadata><RequestId>fake-1</RequestId></ResponseMetadata></DescribeStacksResponse>'
  );
}

function errorXml(code: string, message: string): string {
  return (
    `<ErrorResponse xmlns="${XMLNS}"><Error><Type>Sender</Type><Code>${code}</Code>` +
    `<Message>${escapeXml(message)}</Message></Error><RequestId>fake-2</RequestId></ErrorResponse>`
  );
}

/**
 * The AWS API boundary of `--stack`, faked on 127.0.0.1: answers the query-protocol DescribeStacks the SDK sends
 * (point it here with AWS_ENDPOINT_URL_CLOUDFORMATION) with the outputs of the stacks it was given; any other
 * stack name gets CloudFormation's ValidationError. Nothing of leasefence is replaced.
 */
async function startCloudFormationServer(stacks: readonly FakeStack[]): Promise<CloudFormationServer> {
  const described: string[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const name = form.get('StackName') ?? '';
      const stack = stacks.find((candidate) => candidate.name === name);
      const action = form.get('Action');
      if (action === 'DescribeStacks') described.push(name);
      const [status, body] =
        action !== 'DescribeStacks'
          ? [400, errorXml('InvalidAction', `${action} is not faked here`)]
          : stack
            ? [200, describeStacksXml(stack)]
            : [400, errorXml('ValidationError', `Stack with id ${name} does not exist`)];
      response.writeHead(status, { 'content-type': 'text/xml' });
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    described,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export { type CloudFormationServer, type FakeStack, startCloudFormationServer };
