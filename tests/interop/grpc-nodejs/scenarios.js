// Interop scenarios run by tests/integration/grpc_nodejs_interop_test.cpp: the official RocketMQ 5
// gRPC Node.js client (rocketmq-client-nodejs) producing through mqproxy, which forwards to a live
// mqnamesrv + mqbroker. Usage:
//   node scenarios.js <scenario> <proxy host:port> <topic> [<arg>]
// Scenarios: produce [count], fifo [messages per group], delay [delay ms], unknown_topic.
// Standard output carries only lines "RESULT <json>" (what the C++ test checks against what the
// broker stored); the client's own log goes to standard error. Exits 0 when the scenario's
// expectations hold, 1 (with the reason on stderr and in a RESULT line of kind "failure")
// otherwise, 2 for a usage error; every step is bounded in time and the producer is always shut
// down.
'use strict';

const util = require('node:util');
const { Producer, ClientException, NotFoundException } = require('rocketmq-client-nodejs');

const [scenario, endpoints, topic, arg] = process.argv.slice(2);

// The client's enums (apache.rocketmq.v2): MessageType, Permission, Code.
const MessageType = { 0: 'MESSAGE_TYPE_UNSPECIFIED', 1: 'NORMAL', 2: 'FIFO', 3: 'DELAY', 4: 'TRANSACTION' };
const NORMAL = 1, FIFO = 2, DELAY = 3;
const Permission = { 0: 'PERMISSION_UNSPECIFIED', 1: 'NONE', 2: 'READ', 3: 'WRITE', 4: 'READ_WRITE' };
const CODE_OK = 20000, CODE_NOT_FOUND = 40400, CODE_TOPIC_NOT_FOUND = 40402;

const OVERALL_MS = 90000;
const STARTUP_MS = 20000;
const SHUTDOWN_MS = 10000;
const REQUEST_TIMEOUT_MS = 5000;

function result(kind, fields) {
  process.stdout.write(`RESULT ${JSON.stringify(Object.assign({ scenario, kind }, fields))}\n`);
}
function log(level, args) {
  process.stderr.write(`${new Date().toISOString()} ${level} ${util.format(...args)}\n`);
}
// The client logs every step at info; all of it goes to stderr (the test's log file).
const logger = {
  info: (...a) => log('INFO', a),
  warn: (...a) => log('WARN', a),
  error: (...a) => log('ERROR', a),
  debug: process.env.MQKIT_NODE_DEBUG ? (...a) => log('DEBUG', a) : undefined,
};
const sleep = ms => new Promise(r => setTimeout(r, ms));
function within(ms, what, promise) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
function expect(condition, message) {
  if (!condition) throw new Error(message);
}
// "Error: a (caused by NotFoundException: [request-id=..., response-code=40402] b)".
function describe(err) {
  const parts = [];
  for (let e = err, depth = 0; e && depth < 6; e = e.cause, depth++) {
    parts.push(e instanceof Error ? `${e.name}: ${e.message}` : String(e));
  }
  return parts.join(' (caused by ') + ')'.repeat(parts.length - 1);
}
// The first ClientException (a status the proxy answered with) in an error's cause chain.
function clientExceptionIn(err) {
  for (let e = err, depth = 0; e && depth < 6; e = e.cause, depth++) {
    if (e instanceof ClientException) return e;
  }
  return undefined;
}

// Everything the producer saw and sent, for the checks and for diagnosis: the Settings the proxy
// issued on the telemetry stream, and the message ids the client put in each SendMessageRequest
// (RocketMQ 5's client makes the id; the proxy stores it as UNIQ_KEY and returns it).
const producers = [];
function newProducer(withTopic) {
  const options = { endpoints, namespace: '', requestTimeout: REQUEST_TIMEOUT_MS, logger, maxAttempts: 1 };
  if (withTopic) options.topics = [ topic ];
  const producer = new Producer(options);
  const seen = { settings: [], sentIds: [] };
  const onSettings = producer.onSettingsCommand.bind(producer);
  producer.onSettingsCommand = (from, settings) => {
    seen.settings.push(settings.toObject());
    return onSettings(from, settings);
  };
  const manager = producer.getRpcClientManager();
  const sendMessage = manager.sendMessage.bind(manager);
  manager.sendMessage = (to, request, timeout) => {
    seen.sentIds.push(...request.getMessagesList().map(m => m.getSystemProperties().getMessageId()));
    return sendMessage(to, request, timeout);
  };
  producers.push(producer);
  return { producer, seen };
}

// Starts a producer that declares `topic`: a route from the proxy (QueryRoute) and the first
// Settings on the telemetry stream are both needed before startup() returns.
async function startProducer() {
  const p = newProducer(true);
  await within(STARTUP_MS, 'producer startup (QueryRoute + Telemetry settings)', p.producer.startup());
  expect(p.seen.settings.length > 0, 'startup returned without Settings from the proxy');
  const publishing = p.seen.settings[0].publishing || {};
  result('settings', { settings: p.seen.settings[0] });
  expect(p.seen.settings[0].publishing, `the proxy's Settings carry no publishing part: ${JSON.stringify(p.seen.settings[0])}`);
  expect(publishing.validateMessageType === true,
    `the proxy's Settings do not ask to validate message types: ${JSON.stringify(publishing)}`);
  expect(publishing.maxBodySize > 0,
    `the proxy's Settings.publishing.max_body_size is ${publishing.maxBodySize}: the client then refuses every body`);
  return p;
}

// The route the client holds for `topic`, checked for what a producer of `type` needs: writable
// queues served by the proxy itself, accepting `type`. The client (1.0.8) publishes only to
// queues whose id is 0 (PublishingLoadBalancer filters on queueId === MASTER_BROKER_ID), so a
// writable queue 0 must be among them.
function checkRoute(producer, type) {
  const route = producer.topicRouteCache.get(topic);
  expect(route, `no route cached for ${topic}`);
  const queues = route.messageQueues.map(mq => ({
    id: mq.queueId, permission: Permission[mq.permission] || mq.permission,
    broker: { name: mq.broker.name, id: mq.broker.id, endpoints: mq.broker.endpoints.facade },
    acceptMessageTypes: mq.acceptMessageTypesList.map(t => MessageType[t] || t),
  }));
  result('route', { queues });
  expect(queues.length > 0, `the proxy's route of ${topic} has no queue`);
  for (const q of route.messageQueues) {
    expect(q.broker.endpoints.facade === endpoints,
      `the route sends clients to ${q.broker.endpoints.facade}, not to the proxy ${endpoints}`);
    expect(q.acceptMessageTypesList.includes(type),
      `queue ${q.queueId} of ${topic} accepts ${JSON.stringify(q.acceptMessageTypesList.map(t => MessageType[t]))}, not ${MessageType[type]}`);
  }
  expect(route.messageQueues.some(q => q.queueId === 0 && (q.permission === 3 || q.permission === 4)),
    `no writable queue 0 in the route: rocketmq-client-nodejs 1.0.8 publishes only to queues with id 0`);
}

async function sendChecked(p, message, sentBefore) {
  const receipt = await p.producer.send(message);
  const sentId = p.seen.sentIds[sentBefore];
  expect(p.seen.sentIds.length === sentBefore + 1, `one send made ${p.seen.sentIds.length - sentBefore} requests`);
  expect(receipt.messageId === sentId, `the receipt's messageId ${receipt.messageId} is not the id the client sent, ${sentId}`);
  expect(typeof receipt.offset === 'number' && receipt.offset >= 0, `the receipt's offset is ${receipt.offset}`);
  return receipt;
}

const scenarios = {
  // Normal messages with a tag, keys and user properties; a Heartbeat beside them. Each receipt
  // (messageId, queue offset) is printed with what was sent, for the test to find in the broker.
  async produce() {
    const count = Number(arg || 8);
    const p = await startProducer();
    checkRoute(p.producer, NORMAL);
    const heartbeat = await within(REQUEST_TIMEOUT_MS + 1000, 'Heartbeat',
      p.producer.getRpcClientManager().heartbeat(p.producer.getEndpoints(), p.producer.wrapHeartbeatRequest(),
        REQUEST_TIMEOUT_MS));
    const status = heartbeat.getStatus() ? heartbeat.getStatus().toObject() : undefined;
    result('heartbeat', { status });
    expect(status && status.code === CODE_OK, `Heartbeat answered ${JSON.stringify(status)}`);
    const ids = new Set();
    for (let i = 0; i < count; i++) {
      const tag = i % 2 === 0 ? 'TagA' : 'TagB';
      const keys = [ `key-${i}`, `order-${1000 + i}` ];
      const properties = { 'index': String(i), 'origin': 'grpc-nodejs', 'with space': `v ${i}` };
      const body = `produce-${i}`;
      const receipt = await sendChecked(p, { topic, tag, keys, properties: new Map(Object.entries(properties)),
        body: Buffer.from(body) }, i);
      expect(!ids.has(receipt.messageId), `messageId ${receipt.messageId} returned twice`);
      ids.add(receipt.messageId);
      result('receipt', { index: i, body, tag, keys, properties, messageId: receipt.messageId, offset: receipt.offset });
    }
  },

  // FIFO messages of several groups, interleaved, sent one after another: within a group the
  // queue offsets grow in send order (the proxy puts one group in one queue).
  async fifo() {
    const perGroup = Number(arg || 4);
    const groups = [ 'group-a', 'group-b', 'group-c' ];
    const p = await startProducer();
    checkRoute(p.producer, FIFO);
    const last = new Map();
    let sent = 0;
    for (let seq = 0; seq < perGroup; seq++) {
      for (const group of groups) {
        const body = `fifo-${group}-${seq}`;
        const receipt = await sendChecked(p, { topic, tag: 'Fifo', messageGroup: group, body: Buffer.from(body) }, sent++);
        if (last.has(group)) {
          expect(receipt.offset > last.get(group),
            `group ${group}: message ${seq} got offset ${receipt.offset}, not after ${last.get(group)}`);
        }
        last.set(group, receipt.offset);
        result('receipt', { group, seq, body, messageId: receipt.messageId, offset: receipt.offset });
      }
    }
  },

  // One message with a delivery time a few seconds ahead (a timer message). The receipt line
  // carries the delivery time so the test can look before and after it.
  async delay() {
    const delayMs = Number(arg || 3000);
    const p = await startProducer();
    checkRoute(p.producer, DELAY);
    const deliveryTimestamp = Date.now() + delayMs;
    const body = `delay-${deliveryTimestamp}`;
    const receipt = await sendChecked(p, { topic, tag: 'Delay', keys: [ 'delay-key' ],
      deliveryTimestamp: new Date(deliveryTimestamp), body: Buffer.from(body) }, 0);
    result('receipt', { body, messageId: receipt.messageId, offset: receipt.offset, deliveryTimestamp,
      sentAt: Date.now() });
  },

  // A topic that does not exist: a producer declaring it fails to start, and a send to it from a
  // started producer fails, both with the proxy's NOT_FOUND / TOPIC_NOT_FOUND status.
  async unknown_topic() {
    const declared = newProducer(true);
    let startupError;
    try {
      await within(STARTUP_MS, 'startup of a producer of an unknown topic', declared.producer.startup());
    } catch (err) {
      startupError = err;
    }
    expect(startupError, `a producer of the unknown topic ${topic} started`);
    const startupStatus = clientExceptionIn(startupError);
    result('startup_error', { error: describe(startupError), code: startupStatus && startupStatus.code });
    expect(startupStatus instanceof NotFoundException &&
      (startupStatus.code === CODE_TOPIC_NOT_FOUND || startupStatus.code === CODE_NOT_FOUND),
    `the startup failed, but not with TOPIC_NOT_FOUND from the proxy: ${describe(startupError)}`);

    const plain = newProducer(false);  // no topic declared: startup needs no route
    await within(STARTUP_MS, 'startup of a producer without topics', plain.producer.startup());
    let sendError;
    try {
      await within(REQUEST_TIMEOUT_MS * 3, 'a send to an unknown topic',
        plain.producer.send({ topic, tag: 'T', body: Buffer.from('never stored') }));
    } catch (err) {
      sendError = err;
    }
    expect(sendError, `a send to the unknown topic ${topic} succeeded`);
    const sendStatus = clientExceptionIn(sendError);
    result('send_error', { error: describe(sendError), code: sendStatus && sendStatus.code });
    expect(sendStatus instanceof NotFoundException &&
      (sendStatus.code === CODE_TOPIC_NOT_FOUND || sendStatus.code === CODE_NOT_FOUND),
    `the send failed, but not with TOPIC_NOT_FOUND from the proxy: ${describe(sendError)}`);
    expect(plain.seen.sentIds.length === 0, 'a SendMessage request went out for a topic without a route');
  },
};

async function shutdownAll() {
  const problems = [];
  for (const producer of producers) {
    try {
      // NotifyClientTermination to the proxy, then the telemetry streams and channels close.
      await within(SHUTDOWN_MS, 'producer shutdown', producer.shutdown());
    } catch (err) {
      problems.push(describe(err));
    }
  }
  return problems;
}

function finish(code, message) {
  if (message) {
    process.stderr.write(`${message}\n`);
  }
  process.exit(code);
}

const run = scenarios[scenario];
if (!run || !endpoints || !topic) {
  finish(2, `usage: node scenarios.js <scenario> <proxy host:port> <topic> [<arg>]; scenarios: ${Object.keys(scenarios).join(', ')}`);
}
// A callback of the client that throws (say, on Settings it cannot read) fails the scenario.
process.on('uncaughtException', err => {
  result('failure', { error: `uncaught: ${describe(err)}` });
  finish(1, `scenario ${scenario} failed: uncaught exception in the client: ${err && err.stack || err}`);
});
process.on('unhandledRejection', err => {
  result('failure', { error: `unhandled rejection: ${describe(err)}` });
  finish(1, `scenario ${scenario} failed: unhandled rejection in the client: ${err && err.stack || err}`);
});
setTimeout(() => {
  result('failure', { error: `took longer than ${OVERALL_MS} ms` });
  finish(1, `scenario ${scenario} took longer than ${OVERALL_MS} ms`);
}, OVERALL_MS).unref();

(async () => {
  let failure;
  try {
    await run();
  } catch (err) {
    failure = err;
  }
  const shutdownProblems = await shutdownAll();
  await sleep(50);  // lets grpc-js flush the streams' ends
  if (failure) {
    result('failure', { error: describe(failure) });
    finish(1, `scenario ${scenario} failed: ${failure.stack || failure}`);
  } else if (shutdownProblems.length) {
    result('failure', { error: `shutdown: ${shutdownProblems.join('; ')}` });
    finish(1, `scenario ${scenario} failed at shutdown: ${shutdownProblems.join('; ')}`);
  } else {
    result('passed', {});
    finish(0, `scenario ${scenario} passed`);
  }
})();
