/**
 * The built-ins the adapter runtime relies on, taken when the adapter bundle is evaluated. The
 * extension registers the bundle as a MAIN-world content script at `document_start`, before any
 * script of the page runs, so these are the browser's own functions. The runtime calls them only
 * through `call()` (a captured `Reflect.apply`), never through a global name or a prototype at call
 * time, so a page that later replaces `String`, `Math`, `JSON.stringify`, `fetch`, `XMLHttpRequest`,
 * `postMessage`, a `String.prototype` method or `Promise.prototype.then` changes nothing it does.
 *
 * Outside a browser (unit tests in Node) the names that do not exist are undefined; the runtime only
 * needs them on the paths that use them.
 */

type AnyFn = (...args: never[]) => unknown

const g = globalThis as unknown as Record<string, unknown>
const gopd = Object.getOwnPropertyDescriptor
/** A function-valued own property, read from its descriptor (no getter of the page runs). */
const method = (holder: object | undefined, name: string | symbol): AnyFn | undefined => {
  const value: unknown = holder ? gopd(holder, name)?.value : undefined
  return typeof value === 'function' ? (value as AnyFn) : undefined
}
const getter = (holder: object | undefined, name: string | symbol): AnyFn | undefined =>
  holder ? getterOf(gopd(holder, name)) : undefined
/** The `get` of an accessor descriptor (descriptors are plain data: nothing of the page runs). */
function getterOf(descriptor: PropertyDescriptor | undefined): AnyFn | undefined {
  const get: unknown = descriptor ? Reflect.get(descriptor, 'get') : undefined
  return typeof get === 'function' ? (get as AnyFn) : undefined
}
const proto = (name: string): object | undefined => (g[name] as { prototype?: object } | undefined)?.prototype

const PromiseCtor = Promise
const dateToJSON = method(Date.prototype, 'toJSON')
const speciesGetter = getter(PromiseCtor, Symbol.species)
const ResponseProto = proto('Response')
const MessageEventProto = proto('MessageEvent')
const MessagePortProto = proto('MessagePort')
const HeadersProto = proto('Headers')
const XhrProto = proto('XMLHttpRequest')
const StringProto = String.prototype
/** The `set` of an accessor, read from its descriptor. */
const setter = (holder: object | undefined, name: string): AnyFn | undefined => {
  const descriptor = holder ? gopd(holder, name) : undefined
  const set: unknown = descriptor ? Reflect.get(descriptor, 'set') : undefined
  return typeof set === 'function' ? (set as AnyFn) : undefined
}

export const intrinsics = Object.freeze({
  apply: method(Reflect, 'apply') as typeof Reflect.apply,
  freeze: method(Object, 'freeze') as typeof Object.freeze,
  defineProperty: method(Object, 'defineProperty') as typeof Object.defineProperty,
  /** The String function itself: `String(x)` in the runtime would read the page's global. */
  String: String,
  stringSlice: method(StringProto, 'slice'),
  stringIndexOf: method(StringProto, 'indexOf'),
  stringTrim: method(StringProto, 'trim'),
  stringToUpperCase: method(StringProto, 'toUpperCase'),
  mathRound: method(Math, 'round'),
  getOwnPropertyDescriptor: gopd,
  create: method(Object, 'create') as typeof Object.create,
  stringify: method(JSON, 'stringify'),
  parse: method(JSON, 'parse'),
  now: method(Date, 'now'),
  then: method(PromiseCtor.prototype, 'then'),
  PromiseConstructorSlot: gopd(PromiseCtor.prototype, 'constructor')?.value as unknown,
  URL: URL,
  urlHref: getter(URL.prototype, 'href'),
  urlOrigin: getter(URL.prototype, 'origin'),
  urlPathname: getter(URL.prototype, 'pathname'),
  urlSearch: getter(URL.prototype, 'search'),
  Headers: g.Headers as typeof Headers | undefined,
  headersHas: method(HeadersProto, 'has'),
  headersSet: method(HeadersProto, 'set'),
  headersAppend: method(HeadersProto, 'append'),
  headersForEach: method(HeadersProto, 'forEach'),
  Response: g.Response as typeof Response | undefined,
  TextDecoder: g.TextDecoder as typeof TextDecoder | undefined,
  decode: method(proto('TextDecoder'), 'decode'),
  signalAborted: getter(proto('AbortSignal'), 'aborted'),
  XMLHttpRequest: g.XMLHttpRequest as typeof XMLHttpRequest | undefined,
  xhrOpen: method(XhrProto, 'open'),
  xhrSend: method(XhrProto, 'send'),
  xhrAbort: method(XhrProto, 'abort'),
  xhrSetRequestHeader: method(XhrProto, 'setRequestHeader'),
  xhrGetAllResponseHeaders: method(XhrProto, 'getAllResponseHeaders'),
  xhrSetResponseType: setter(XhrProto, 'responseType'),
  xhrStatus: getter(XhrProto, 'status'),
  xhrStatusText: getter(XhrProto, 'statusText'),
  xhrResponse: getter(XhrProto, 'response'),
  xhrResponseURL: getter(XhrProto, 'responseURL'),
  setTimeout: g.setTimeout as typeof setTimeout,
  clearTimeout: g.clearTimeout as typeof clearTimeout,
  fetch: typeof g.fetch === 'function' ? (g.fetch as AnyFn) : undefined,
  responseText: method(ResponseProto, 'text'),
  responseStatus: getter(ResponseProto, 'status'),
  responseStatusText: getter(ResponseProto, 'statusText'),
  MessageChannel: g.MessageChannel as typeof MessageChannel | undefined,
  portPost: method(MessagePortProto, 'postMessage'),
  portStart: method(MessagePortProto, 'start'),
  addEventListener: method(proto('EventTarget'), 'addEventListener'),
  stopImmediatePropagation: method(proto('Event'), 'stopImmediatePropagation'),
  eventData: getter(MessageEventProto, 'data'),
  windowPost: typeof g.postMessage === 'function' ? (g.postMessage as AnyFn) : undefined,
})

/** Calls a captured function with `this` and arguments, without touching the page's Function.prototype. */
export function call<T>(fn: unknown, self: unknown, ...args: unknown[]): T {
  return intrinsics.apply(fn as AnyFn, self, args) as T
}

/** `String(value)` with the String function taken at document_start. */
export function str(value: unknown): string {
  return typeof value === 'string' ? value : intrinsics.String(value)
}

/** `array.push(value)` without Array.prototype (a page can define setters for indexes there). */
export function append<T>(array: T[], value: T): void {
  intrinsics.defineProperty(array, array.length, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  })
}

/**
 * `value` given own, non-enumerable `then: undefined`, so resolving a promise with it or awaiting it
 * never looks `then` up on a prototype the page can change (Object.prototype, Response.prototype).
 * Returns `value`; primitives and frozen objects are left as they are (primitives are never thenable).
 */
export function unthenable<T>(value: T): T {
  if ((typeof value === 'object' && value !== null) || typeof value === 'function') {
    try {
      intrinsics.defineProperty(value, 'then', { value: undefined, enumerable: false, configurable: false })
    } catch {
      // Frozen or non-extensible: the caller's own value, nothing of the page's.
    }
  }
  return value
}

/**
 * A promise of the runtime handed to plugin code, with the intrinsic `then` and `constructor` as own
 * properties: `await` on it takes it as it is (no `constructor` lookup on Promise.prototype) and calls
 * the browser's own `then`, whatever the page did to Promise.prototype.
 */
export function ownPromise<T>(
  executor: (resolve: (value: T) => void, reject: (error: unknown) => void) => void,
): Promise<T> {
  const promise = new PromiseCtor<T>(executor)
  const own: object = promise
  intrinsics.defineProperty(own, 'then', {
    value: intrinsics.then,
    enumerable: false,
    configurable: false,
  })
  intrinsics.defineProperty(own, 'constructor', {
    value: PromiseCtor,
    enumerable: false,
    configurable: false,
  })
  return promise
}

/** `then` with the captured intrinsic: a page that replaced Promise.prototype.then is not consulted. */
export function settle(value: unknown, onValue: (v: unknown) => void, onError: (e: unknown) => void): void {
  let isPromise = false
  try {
    // The intrinsic `then` throws on anything that is not a real promise.
    call(intrinsics.then, value, onValue, onError)
    isPromise = true
  } catch {
    isPromise = false
  }
  if (!isPromise) onValue(value)
}

/**
 * Where a page can still reach into a handler's own promises: `async` functions and `await` look up
 * `then` on the values they resolve with. A page that defines `then` on a built-in prototype, or
 * replaces Promise.prototype.then or its `constructor`, can make a handler's promise resolve to a
 * value of its choosing. The runtime refuses a result when any of these changed (see docs/security.md).
 */
const thenHolders: ReadonlyArray<readonly [string, object | undefined]> = [
  ['Object.prototype', Object.prototype],
  ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype],
  ['Error.prototype', Error.prototype],
  ['Map.prototype', Map.prototype],
  ['Set.prototype', Set.prototype],
  ['Date.prototype', Date.prototype],
]

/**
 * The first built-in the page changed in a way that can forge a handler's promise or its serialized
 * result, or null.
 */
export function promiseTampering(): string | null {
  const promiseThen = gopd(PromiseCtor.prototype, 'then')
  if (!promiseThen || promiseThen.value !== intrinsics.then) return 'Promise.prototype.then'
  const ctor = gopd(PromiseCtor.prototype, 'constructor')
  if (!ctor || ctor.value !== intrinsics.PromiseConstructorSlot) return 'Promise.prototype.constructor'
  if (gopd(PromiseCtor, Symbol.species)?.get !== speciesGetter) return 'Promise[Symbol.species]'
  // An index loop: a page can replace Array.prototype[Symbol.iterator], not the loop syntax.
  for (let i = 0; i < thenHolders.length; i++) {
    const name = thenHolders[i]![0]
    const holder = thenHolders[i]![1]
    if (holder && gopd(holder, 'then') !== undefined) return `${name}.then`
    // JSON.stringify (even the captured one) calls `toJSON` on every object it meets.
    if (holder && holder !== Date.prototype && gopd(holder, 'toJSON') !== undefined) return `${name}.toJSON`
  }
  if (method(Date.prototype, 'toJSON') !== dateToJSON) return 'Date.prototype.toJSON'
  return null
}
