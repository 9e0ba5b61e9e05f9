import * as iam from 'aws-cdk-lib/aws-iam';

/** The STS actions that start a role session whose name the caller chooses. */
const ASSUME_ACTIONS = ['sts:AssumeRole', 'sts:AssumeRoleWithWebIdentity', 'sts:AssumeRoleWithSAML'] as const;

/**
 * Trust-policy statements that make a tag-scoped producer's session name its tenant tag: IAM confines its writes by
 * `aws:PrincipalTag/<tagKey>` while the worker reads its tenant from the session name in its SQS SenderId
 * (`AROA…:acme`), so a session may start only when it passes the tag as a session tag (which overrides the role's own
 * tag) and names itself after that tag's value. Two Denies (any principal): the tag absent from the request, or a
 * session name other than the tag. A Deny outlasts every Allow of the trust policy.
 * @example
 * producerRole.assumeRolePolicy?.addStatements(...sessionBindingStatements('tenant'));
 */
function sessionBindingStatements(tagKey: string): iam.PolicyStatement[] {
  const deny = (sid: string, conditions: Record<string, Record<string, string>>) =>
    new iam.PolicyStatement({
      sid,
      effect: iam.Effect.DENY,
      principals: [new iam.StarPrincipal()],
      actions: [...ASSUME_ACTIONS],
      conditions,
    });
  return [
    deny('TenantTagIsASessionTag', { Null: { [`aws:RequestTag/${tagKey}`]: 'true' } }),
    deny('SessionNameIsTheTenantTag', { StringNotEquals: { 'sts:RoleSessionName': `\${aws:RequestTag/${tagKey}}` } }),
  ];
}

/**
 * Binds a tag-scoped producer's session name to its tag in the trust policy of a role of this app. A principal whose
 * trust policy the construct cannot write (an imported role, a user) fails unless `bound` says its trust policy
 * already carries sessionBindingStatements (or an equivalent guarantee of the broker): otherwise IAM and the worker
 * could believe different tenants.
 */
function bindSessionToTag(grantee: iam.IGrantable, tagKey: string, bound: boolean): void {
  const principal = grantee.grantPrincipal;
  if (principal instanceof iam.Role && principal.assumeRolePolicy) {
    principal.assumeRolePolicy.addStatements(...sessionBindingStatements(tagKey));
    return;
  }
  if (bound) return;
  throw new Error(
    `grantSendJobs: a principalTag producer's trust policy must tie its session name to the ${tagKey} tag, and the construct cannot write the trust policy of ${principal.toString()}: add sessionBindingStatements('${tagKey}') to it and pass { sessionNameBound: true }`,
  );
}

export { bindSessionToTag, sessionBindingStatements };
