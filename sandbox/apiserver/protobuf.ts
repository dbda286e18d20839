// Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`), as client-go's typed
// clients send them for built-in kinds (kubectl create, helm's release Secrets), turned into the
// JSON object a JSON client would have sent, so the rest of the server admits them unchanged.
// Wire facts: the body is the magic "k8s\0" then a runtime.Unknown whose typeMeta names the kind
// and whose raw holds the object's message (without TypeMeta). Answers stay JSON: client-go
// decodes a response by its Content-Type, whatever it preferred in Accept.
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import { ApiError, badRequest, statusBody } from './status.ts';
import type { KObj } from './types.ts';

const MAGIC = Buffer.from('k8s\0', 'latin1');

const root = protobuf.parse(readFileSync(new URL('./k8s-subset.proto', import.meta.url), 'utf8'), { keepCase: true }).root;
const unknownType = root.lookupType('k8s.Unknown');

/** A message type of k8s-subset.proto, for tests that encode bodies as client-go does. */
export function protobufType(name: string): protobuf.Type {
  return root.lookupType(`k8s.${name}`);
}

/** The kinds whose messages k8s-subset.proto holds, by the name the envelope gives. */
const DECODABLE_KINDS = new Set(['Namespace', 'Secret', 'ConfigMap', 'ServiceAccount', 'Service', 'DeleteOptions']);

/**
 * Fields that are pointers in Go: marshalled only when set, so a zero value on the wire is a
 * value the client chose (`immutable: false`). Every other scalar is written by Go even when
 * empty and means "unset" when zero, as its JSON form (omitempty) would.
 */
const POINTER_FIELDS = new Set([
  'ObjectMeta.deletionGracePeriodSeconds',
  'OwnerReference.controller',
  'OwnerReference.blockOwnerDeletion',
  'DeleteOptions.gracePeriodSeconds',
  'DeleteOptions.orphanDependents',
  'DeleteOptions.propagationPolicy',
  'Preconditions.uid',
  'Preconditions.resourceVersion',
  'Secret.immutable',
  'ConfigMap.immutable',
  'ServiceAccount.automountServiceAccountToken',
  'ServiceSpec.ipFamilyPolicy',
  'ServiceSpec.allocateLoadBalancerNodePorts',
  'ServiceSpec.loadBalancerClass',
  'ServiceSpec.internalTrafficPolicy',
  'ServiceSpec.trafficDistribution',
  'ServicePort.appProtocol',
  'ClientIPConfig.timeoutSeconds',
]);

type Decoded = Record<string, unknown>;

function isProtobufBody(raw: Buffer): boolean {
  return raw.length >= MAGIC.length && raw.subarray(0, MAGIC.length).equals(MAGIC);
}

function unrecognized(expected: string, why: string): ApiError {
  return badRequest(`the object provided is unrecognized (must be of type ${expected}): ${why}`);
}

/**
 * The JSON object of a protobuf body. `expected` is the kind the endpoint takes (for messages);
 * a kind without a message here is a 415 naming it, so the caller knows to send JSON instead.
 */
export function decodeProtobufBody(raw: Buffer, expected: string): KObj {
  if (!isProtobufBody(raw)) throw unrecognized(expected, 'provided object is not protobuf: the "k8s\\0" prefix is missing');
  let envelope: Decoded;
  try {
    envelope = unknownType.decode(raw.subarray(MAGIC.length)) as unknown as Decoded;
  } catch (e) {
    throw unrecognized(expected, `couldn't decode the protobuf envelope: ${(e as Error).message}`);
  }
  const typeMeta = (envelope.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
  const kind = typeMeta.kind || expected;
  const encoding = envelope.contentEncoding;
  if (typeof encoding === 'string' && encoding !== '') throw unrecognized(expected, `unsupported content encoding "${encoding}"`);
  if (!DECODABLE_KINDS.has(kind)) {
    throw new ApiError(
      415,
      statusBody(
        415,
        'UnsupportedMediaType',
        `the test API server cannot decode protobuf bodies of kind "${kind}" (apiVersion "${typeMeta.apiVersion ?? ''}"); send it as application/json`,
      ),
    );
  }
  const type = root.lookupType(`k8s.${kind}`);
  let fields: Decoded;
  try {
    fields = messageJson(type, type.decode((envelope.raw as Uint8Array | undefined) ?? new Uint8Array()) as unknown as Decoded);
  } catch (e) {
    throw unrecognized(expected, `couldn't decode ${kind} from protobuf: ${(e as Error).message}`);
  }
  const head: KObj = {};
  if (typeMeta.kind) head.kind = typeMeta.kind;
  if (typeMeta.apiVersion) head.apiVersion = typeMeta.apiVersion;
  return { ...head, ...fields };
}

function messageJson(type: protobuf.Type, message: Decoded): Decoded {
  const out: Decoded = {};
  for (const field of type.fieldsArray) {
    if (!Object.hasOwn(message, field.name)) continue;
    const value = fieldJson(field, message[field.name]);
    if (value === undefined || value === null) continue;
    if ((value === '' || value === 0 || value === false) && !POINTER_FIELDS.has(`${type.name}.${field.name}`)) continue;
    out[field.name] = value;
  }
  return out;
}

function fieldJson(field: protobuf.Field, value: unknown): unknown {
  if (field.map) {
    const entries = Object.entries(value as Decoded).map(([k, v]) => [k, valueJson(field, v)]);
    return entries.length ? Object.fromEntries(entries) : undefined;
  }
  if (field.repeated) {
    const items = (value as unknown[]).map((v) => valueJson(field, v));
    return items.length ? items : undefined;
  }
  return valueJson(field, value);
}

function valueJson(field: protobuf.Field, value: unknown): unknown {
  const type = field.resolvedType;
  if (type instanceof protobuf.Type)
    return SPECIAL_MESSAGES.has(type.name) ? specialJson(type, value as Decoded) : messageJson(type, value as Decoded);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  // int64 fields decode to Long; every int64 Kubernetes sends fits a double.
  if (typeof value === 'object' && value !== null) return Number(String(value));
  return value;
}

/** The messages whose JSON form is not an object. */
const SPECIAL_MESSAGES = new Set(['Time', 'IntOrString', 'FieldsV1']);

function specialJson(type: protobuf.Type, message: Decoded): unknown {
  switch (type.name) {
    case 'Time': {
      const seconds = Number(String(message.seconds ?? 0));
      const nanos = Number(message.nanos ?? 0);
      // Go writes the zero time as an empty message: JSON `null`, i.e. unset.
      if (seconds === 0 && nanos === 0) return null;
      // metav1.Time's JSON form has whole seconds.
      return `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
    }
    case 'IntOrString':
      return Number(String(message.type ?? 0)) === 1 ? (message.strVal ?? '') : (message.intVal ?? 0);
    case 'FieldsV1': {
      const raw = message.Raw as Uint8Array | undefined;
      return raw?.length ? JSON.parse(Buffer.from(raw).toString('utf8')) : {};
    }
    default:
      throw new Error(`no JSON form for ${type.name}`);
  }
}
