import type { Stack } from 'aws-cdk-lib';
import type { CfnFunction, IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';

/** A CloudFormation resource as it appears in a synthesized template. */
interface TemplateResource {
  Type: string;
  Properties?: Record<string, unknown>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
  Metadata?: Record<string, unknown>;
}

/** One allowed (action, resource) pair of an IAM policy, with the resource rendered as text. */
interface Permission {
  action: string;
  resource: string;
  condition?: unknown;
}

type Template = { Resources: Record<string, TemplateResource> };

/** Renders intrinsic references as readable text: GetAtt → `Id.Attr`, Ref → `Id`, Join → concatenation. */
function render(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(render).join(',');
  if (value && typeof value === 'object') {
    const [key, inner] = Object.entries(value)[0] ?? [];
    if (key === 'Fn::GetAtt' && Array.isArray(inner)) return inner.join('.');
    if (key === 'Ref') return String(inner);
    if (key === 'Fn::Join' && Array.isArray(inner)) {
      const [separator, parts] = inner as [string, unknown[]];
      return parts.map(render).join(separator);
    }
  }
  return JSON.stringify(value);
}

function asArray<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** Logical id of a construct's CloudFormation resource in its stack. */
function logicalIdOf(stack: Stack, construct: IConstruct): string {
  return stack.resolve((construct.node.defaultChild as CfnFunction).logicalId) as string;
}

/** Every (action, resource) pair that IAM policies attached to the role give that role. */
function permissionsOfRole(template: Template, roleLogicalId: string): Permission[] {
  return statementsOfRole(template, roleLogicalId, 'Allow');
}

/** Every (action, resource) pair that IAM policies attached to the role explicitly deny it. */
function denialsOfRole(template: Template, roleLogicalId: string): Permission[] {
  return statementsOfRole(template, roleLogicalId, 'Deny');
}

function statementsOfRole(template: Template, roleLogicalId: string, effect: 'Allow' | 'Deny'): Permission[] {
  const permissions: Permission[] = [];
  for (const resource of Object.values(template.Resources)) {
    if (resource.Type !== 'AWS::IAM::Policy') continue;
    const roles = asArray(resource.Properties?.Roles as unknown[]).map(render);
    if (!roles.includes(roleLogicalId)) continue;
    const document = resource.Properties?.PolicyDocument as { Statement: Array<Record<string, unknown>> };
    for (const statement of document.Statement) {
      if (statement.Effect !== effect) continue;
      for (const action of asArray(statement.Action as string | string[])) {
        for (const target of asArray(statement.Resource as unknown)) {
          permissions.push({
            action,
            resource: render(target),
            ...(statement.Condition ? { condition: statement.Condition } : {}),
          });
        }
      }
    }
  }
  return permissions;
}

/** The permissions of a function's execution role (found through the function's Role property). */
function permissionsOfFunction(stack: Stack, template: Template, fn: IFunction): Permission[] {
  return permissionsOfRole(template, roleOfFunction(stack, template, fn));
}

/** The explicit denials of a function's execution role. */
function denialsOfFunction(stack: Stack, template: Template, fn: IFunction): Permission[] {
  return denialsOfRole(template, roleOfFunction(stack, template, fn));
}

function roleOfFunction(stack: Stack, template: Template, fn: IFunction): string {
  const resource = template.Resources[logicalIdOf(stack, fn)];
  return render(resource?.Properties?.Role).replace(/\.Arn$/, '');
}

/** `action on resource` lines, sorted, for exact comparisons. */
function permissionLines(permissions: Permission[]): string[] {
  return [...new Set(permissions.map((entry) => `${entry.action} on ${entry.resource}`))].sort();
}

/** All resources of one CloudFormation type. */
function resourcesOfType(template: Template, type: string): Array<[string, TemplateResource]> {
  return Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
}

export {
  denialsOfFunction,
  denialsOfRole,
  logicalIdOf,
  type Permission,
  permissionLines,
  permissionsOfFunction,
  permissionsOfRole,
  render,
  resourcesOfType,
  type Template,
  type TemplateResource,
};
