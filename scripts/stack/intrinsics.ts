// CloudFormation intrinsic functions (Ref, Fn::GetAtt, Fn::Join, Fn::Sub; Fn::If over the template's Conditions,
// which use Fn::Equals, Fn::Not, Fn::And, Fn::Or; AWS::NoValue removes the property) resolved against local
// resources.

/** What `Ref` returns for a logical id, plus its `Fn::GetAtt` attributes (`Arn`, `QueueName`, ...). */
export interface LocalRef {
  ref: string;
  attributes: Record<string, string>;
}

/** Logical ids and pseudo parameters known to the local stack. */
export interface RefScope {
  refs: Map<string, LocalRef>;
  /** `AWS::Region`, `AWS::AccountId`, `AWS::Partition`, `AWS::StackName`, `AWS::URLSuffix`. */
  pseudo: Readonly<Record<string, string>>;
  /** The template's `Conditions`, by name (Fn::If evaluates them). */
  conditions?: Readonly<Record<string, unknown>>;
}

/** What `Ref: AWS::NoValue` resolves to: the property that holds it is left out. */
const NO_VALUE = Symbol('AWS::NoValue');

/** The logical id serverless gives a function's `AWS::Lambda::Function` (`my-fn` → `MyDashfnLambdaFunction`). */
export function functionLogicalId(functionKey: string): string {
  const normalized = functionKey.replace(/-/g, 'Dash').replace(/_/g, 'Underscore');
  return `${normalized.charAt(0).toUpperCase()}${normalized.slice(1)}LambdaFunction`;
}

/** Returns `value` with every intrinsic function replaced by its local value; throws on anything unknown. */
export function resolveIntrinsics(value: unknown, scope: RefScope): unknown {
  const resolved = resolveValue(value, scope);
  return resolved === NO_VALUE ? undefined : resolved;
}

function resolveValue(value: unknown, scope: RefScope): unknown {
  if (Array.isArray(value))
    return value.map((item) => resolveValue(item, scope)).filter((item) => item !== NO_VALUE);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  const [first] = entries;
  if (entries.length === 1 && first && isIntrinsicKey(first[0]))
    return resolveFunction(first[0], first[1], scope);
  return Object.fromEntries(
    entries
      .map(([key, item]) => [key, resolveValue(item, scope)] as const)
      .filter(([, item]) => item !== NO_VALUE),
  );
}

/** A condition's value: a named one of the template, or Fn::Equals, Fn::Not, Fn::And, Fn::Or over values. */
function condition(value: unknown, scope: RefScope): boolean {
  if (typeof value === 'object' && value !== null && 'Condition' in value)
    return namedCondition(String((value as { Condition: unknown }).Condition), scope);
  const [entry] = Object.entries(value as Record<string, unknown>);
  const [name, args] = entry ?? [];
  const list = Array.isArray(args) ? args : [];
  switch (name) {
    case 'Fn::Equals': {
      const [a, b] = list.map((item) => resolveIntrinsics(item, scope));
      return JSON.stringify(a) === JSON.stringify(b);
    }
    case 'Fn::Not':
      return !condition(list[0], scope);
    case 'Fn::And':
      return list.every((item) => condition(item, scope));
    case 'Fn::Or':
      return list.some((item) => condition(item, scope));
    default:
      throw new Error(`condition function ${String(name)} is not supported locally`);
  }
}

function namedCondition(name: string, scope: RefScope): boolean {
  const definition = scope.conditions?.[name];
  if (definition === undefined) throw new Error(`unknown condition ${name}`);
  return condition(definition, scope);
}

/** Like `resolveIntrinsics`, for places that must end up a string (ARNs, names). */
export function resolveString(value: unknown, scope: RefScope): string {
  const resolved = resolveIntrinsics(value, scope);
  if (typeof resolved !== 'string') throw new Error(`expected a string, got ${JSON.stringify(value)}`);
  return resolved;
}

function isIntrinsicKey(key: string): boolean {
  return key === 'Ref' || key.startsWith('Fn::');
}

function resolveFunction(name: string, args: unknown, scope: RefScope): unknown {
  switch (name) {
    case 'Ref':
      if (args === 'AWS::NoValue') return NO_VALUE;
      return lookup(resolveString(args, scope), undefined, scope);
    case 'Fn::If': {
      const [test, whenTrue, whenFalse] = args as [string, unknown, unknown];
      return resolveValue(namedCondition(test, scope) ? whenTrue : whenFalse, scope);
    }
    case 'Fn::GetAtt': {
      const [id, attribute] = typeof args === 'string' ? splitOnce(args, '.') : (args as unknown[]);
      return lookup(resolveString(id, scope), resolveString(attribute, scope), scope);
    }
    case 'Fn::Join': {
      const [separator, items] = args as [string, unknown[]];
      const list = resolveIntrinsics(items, scope);
      if (!Array.isArray(list)) throw new Error('Fn::Join needs a list');
      return list.map(String).join(separator);
    }
    case 'Fn::Sub':
      return substitute(args, scope);
    default:
      throw new Error(`intrinsic function ${name} is not supported locally`);
  }
}

function substitute(args: unknown, scope: RefScope): string {
  const [template, variables] =
    typeof args === 'string' ? [args, {}] : (args as [string, Record<string, unknown>]);
  return template.replace(/\$\{([^}!][^}]*)\}/g, (_, expression: string) => {
    if (expression in variables) return resolveString(variables[expression], scope);
    const [id, attribute] = expression.includes('.') ? splitOnce(expression, '.') : [expression, undefined];
    return lookup(id, attribute, scope);
  });
}

function lookup(id: string, attribute: string | undefined, scope: RefScope): string {
  if (attribute === undefined && id in scope.pseudo) return scope.pseudo[id] as string;
  const ref = scope.refs.get(id);
  if (!ref) throw new Error(`unknown logical id ${id}`);
  if (attribute === undefined) return ref.ref;
  const value = ref.attributes[attribute];
  if (value === undefined) throw new Error(`unknown attribute ${id}.${attribute}`);
  return value;
}

function splitOnce(text: string, separator: string): [string, string] {
  const index = text.indexOf(separator);
  return index < 0 ? [text, ''] : [text.slice(0, index), text.slice(index + 1)];
}
