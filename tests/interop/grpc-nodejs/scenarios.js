// Interop scenarios run by tests/integration/grpc_nodejs_interop_test.cpp: the official RocketMQ 5
// gRPC Node.js client (rocketmq-client-nodejs) producing and consuming through mqproxy, which
// forwards to a live mqnamesrv + mqbroker. Usage:
//   node scenarios.js <scenario> <proxy host:port> <topic> [<arg>...]
// Producer scenarios: produce [count], fifo [messages per group], delay [delay ms], unknown_topic.
// Transactional producer scenarios (the topic must accept TRANSACTION): transaction (one
// committed, one rolled back), orphan_transaction [ms to wait for the checks] (never ended: the
// broker's checks, forwarded by the proxy over the telemetry stream, decide).
// SimpleConsumer scenarios (pop-based consumption; the group must exist on the broker):
//   simple_consume <group> [count] [invisible ms], redelivery <group> [invisible ms],
//   change_invisible <group> [invisible ms] [changed invisible ms],
//   fifo_consume <group> [messages per message group], dead_letter <group> [max attempts] [invisible ms].
// PushConsumer scenario (the group must exist): push_consume <group> [count] [ms each message takes].
// ACL (a proxy with acl_enable): unauthorized (a producer's startup must be refused UNAUTHORIZED).
// Every client signs its calls with the account in $MQKIT_NODE_ACCESS_KEY / $MQKIT_NODE_SECRET_KEY
// when they are set (the client's sessionCredentials), and connects with TLS when $MQKIT_NODE_TLS is 1
// (trusting the certificates in $GRPC_DEFAULT_SSL_ROOTS_FILE_PATH, as grpc-js does).
// Standard output carries only lines "RESULT <json>" (what the C++ test checks against what the
// broker stored); the client's own log, and every ReceiveMessage, AckMessage and
// ChangeInvisibleDuration exchanged with the proxy, go to standard error. Exits 0 when the
// scenario's expectations hold, 1 (with the reason on stderr and in a RESULT line of kind
// "failure") otherwise, 2 for a usage error; every step is bounded in time and every client is
// always shut down.
'use strict';

const crypto = require('node:crypto');
const util = require('node:util');
const { Producer, SimpleConsumer, PushConsumer, ConsumeResult, ClientException, NotFoundException } =
  require('rocketmq-client-nodejs');
// The client's generated protobuf classes, for QueryAssignment (which SimpleConsumer does not
// call) and for looking at the raw ReceiveMessage stream.
const { QueryAssignmentRequest, ReceiveMessageResponse } =
  require('rocketmq-client-nodejs/proto/apache/rocketmq/v2/service_pb');
const { Resource } = require('rocketmq-client-nodejs/proto/apache/rocketmq/v2/definition_pb');

const [scenario, endpoints, topic, ...args] = process.argv.slice(2);
const arg = args[0];

// The client's enums (apache.rocketmq.v2): MessageType, Permission, Code, DigestType.
const MessageType = { 0: 'MESSAGE_TYPE_UNSPECIFIED', 1: 'NORMAL', 2: 'FIFO', 3: 'DELAY', 4: 'TRANSACTION' };
const NORMAL = 1, FIFO = 2, DELAY = 3, TRANSACTION = 4;
// TransactionResolution and TransactionSource, for EndTransaction.
const Resolution = { 0: 'TRANSACTION_RESOLUTION_UNSPECIFIED', 1: 'COMMIT', 2: 'ROLLBACK' };
const UNSPECIFIED_RESOLUTION = 0, COMMIT = 1, ROLLBACK = 2;
const Source = { 0: 'SOURCE_UNSPECIFIED', 1: 'SOURCE_CLIENT', 2: 'SOURCE_SERVER_CHECK' };
const Permission = { 0: 'PERMISSION_UNSPECIFIED', 1: 'NONE', 2: 'READ', 3: 'WRITE', 4: 'READ_WRITE' };
const READ = 2, READ_WRITE = 4;
const CODE_UNAUTHORIZED = 40100;
const CODE_OK = 20000, CODE_NOT_FOUND = 40400, CODE_TOPIC_NOT_FOUND = 40402, CODE_MESSAGE_NOT_FOUND = 40401;
const DIGEST_MD5 = 2;
const ContentCase = ReceiveMessageResponse.ContentCase;

const OVERALL_MS = 90000;
const STARTUP_MS = 20000;
const SHUTDOWN_MS = 10000;
const REQUEST_TIMEOUT_MS = 5000;
// Consumers' long polling (SimpleConsumer's awaitDuration): how long a ReceiveMessage waits for
// messages before the proxy answers MESSAGE_NOT_FOUND.
const AWAIT_MS = 3000;

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
  // A function even when quiet: Transaction.commit() and rollback() call logger.debug() unguarded.
  debug: process.env.MQKIT_NODE_DEBUG ? (...a) => log('DEBUG', a) : () => {},
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

// The account every client signs with, when the test names one.
const sessionCredentials = process.env.MQKIT_NODE_ACCESS_KEY
  ? { accessKey: process.env.MQKIT_NODE_ACCESS_KEY, accessSecret: process.env.MQKIT_NODE_SECRET_KEY || '' }
  : undefined;

const sslEnabled = process.env.MQKIT_NODE_TLS === '1';

// Every client started (producers and consumers): all are shut down at the end, whatever happened.
const clients = [];

// Everything the producer saw and sent, for the checks and for diagnosis: the Settings the proxy
// issued on the telemetry stream, the message ids the client put in each SendMessageRequest
// (RocketMQ 5's client makes the id; the proxy stores it as UNIQ_KEY and returns it), each
// EndTransaction (request and answer) and each RecoverOrphanedTransactionCommand the proxy sent on
// the telemetry stream (as it came, before the client decodes it for its checker).
function newProducer(withTopic, checker) {
  const options = { endpoints, namespace: '', requestTimeout: REQUEST_TIMEOUT_MS, logger, maxAttempts: 1, sessionCredentials, sslEnabled };
  if (withTopic) options.topics = [ topic ];
  if (checker) options.checker = checker;
  const producer = new Producer(options);
  const seen = { settings: [], sentIds: [], ends: [], recoveries: [] };
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
  const endTransaction = manager.endTransaction.bind(manager);
  manager.endTransaction = async (to, request, timeout) => {
    const r = request.toObject();
    const exchange = {
      sent: { messageId: r.messageId, transactionId: r.transactionId, topic: r.topic && r.topic.name,
        resolution: Resolution[r.resolution] || r.resolution, source: Source[r.source] || r.source },
      at: Date.now(),
    };
    seen.ends.push(exchange);
    try {
      const response = await endTransaction(to, request, timeout);
      exchange.answer = response.toObject();
      log('INFO', [ `EndTransaction ${JSON.stringify(exchange.sent)} answered ${JSON.stringify(exchange.answer)}` ]);
      return response;
    } catch (err) {
      exchange.error = describe(err);
      log('INFO', [ `EndTransaction ${JSON.stringify(exchange.sent)} failed: ${exchange.error}` ]);
      throw err;
    }
  };
  const onRecover = producer.onRecoverOrphanedTransactionCommand.bind(producer);
  producer.onRecoverOrphanedTransactionCommand = (from, command) => {
    const m = command.getMessage();
    const sp = m && m.getSystemProperties();
    const body = m ? Buffer.from(m.getBody_asU8()) : Buffer.alloc(0);
    const recovery = {
      transactionId: command.getTransactionId(), at: Date.now(),
      message: m ? {
        messageId: sp && sp.getMessageId(), topic: m.getTopic() && m.getTopic().getName(), body: body.toString(),
        tag: sp && sp.getTag(), keys: sp && sp.getKeysList(), messageType: sp && (MessageType[sp.getMessageType()] || sp.getMessageType()),
        properties: Object.fromEntries(m.getUserPropertiesMap().entries()),
        digest: sp && sp.getBodyDigest() ? sp.getBodyDigest().toObject() : undefined, md5: md5Upper(body),
      } : undefined,
    };
    log('INFO', [ `RecoverOrphanedTransactionCommand ${JSON.stringify(recovery)}` ]);
    seen.recoveries.push(recovery);
    return onRecover(from, command);
  };
  clients.push(producer);
  return { producer, seen };
}

// Starts a producer that declares `topic`: a route from the proxy (QueryRoute) and the first
// Settings on the telemetry stream are both needed before startup() returns.
async function startProducer(checker) {
  const p = newProducer(true, checker);
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

async function sendChecked(p, message, sentBefore, transaction) {
  const receipt = await within(REQUEST_TIMEOUT_MS + 1000, `send of ${message.body}`, p.producer.send(message, transaction));
  const sentId = p.seen.sentIds[sentBefore];
  expect(p.seen.sentIds.length === sentBefore + 1, `one send made ${p.seen.sentIds.length - sentBefore} requests`);
  expect(receipt.messageId === sentId, `the receipt's messageId ${receipt.messageId} is not the id the client sent, ${sentId}`);
  expect(typeof receipt.offset === 'number' && receipt.offset >= 0, `the receipt's offset is ${receipt.offset}`);
  return receipt;
}

// ---- Transactional messages ----

// A transactional message's user property `resolution` (COMMIT or ROLLBACK) says how its
// transaction is to end; the checkers below answer the broker's checks with it. Every call is
// recorded (and printed as a "check" result line) with the message as the checker saw it.
function newChecker() {
  const calls = [];
  const checker = {
    async check(m) {
      const v = { messageId: m.messageId, topic: m.topic, body: m.body.toString(), tag: m.tag || undefined, keys: m.keys,
        properties: Object.fromEntries(m.properties), corrupted: m.corrupted, at: Date.now() };
      const wanted = v.properties.resolution;
      const resolution = wanted === 'COMMIT' ? COMMIT : wanted === 'ROLLBACK' ? ROLLBACK : UNSPECIFIED_RESOLUTION;
      v.resolution = Resolution[resolution];
      calls.push(v);
      result('check', v);
      return resolution;
    },
  };
  return { checker, calls };
}

// One transactional message in a transaction of its own, with `resolution` as a user property
// (what the checker answers for it). The receipt must carry the message id the client sent and a
// transaction id (what EndTransaction names).
async function sendInTransaction(p, resolution, index) {
  const tag = 'Tx';
  const keys = [ `${scenario}-${resolution.toLowerCase()}` ];
  const properties = { resolution, origin: `grpc-nodejs-${scenario}` };
  const body = `${scenario}-${resolution.toLowerCase()}-${Date.now()}`;
  const transaction = p.producer.beginTransaction();
  const receipt = await sendChecked(p, { topic, tag, keys, properties: new Map(Object.entries(properties)),
    body: Buffer.from(body) }, index, transaction);
  expect(typeof receipt.transactionId === 'string' && receipt.transactionId.length > 0,
    `the receipt of transactional message ${receipt.messageId} carries no transaction id: ${JSON.stringify(receipt.transactionId)}`);
  return { transaction, receipt, sent: { resolution, body, tag, keys, properties, messageId: receipt.messageId,
    transactionId: receipt.transactionId, offset: receipt.offset } };
}

// Same user properties, in whatever order (a map's order is not kept on the wire).
function sameProperties(a, b) {
  const sorted = o => JSON.stringify(Object.entries(o).sort(([ x ], [ y ]) => (x < y ? -1 : x > y ? 1 : 0)));
  return sorted(a) === sorted(b);
}

// The EndTransaction exchange(s) the client made for `messageId` with `source`.
function endsOf(p, messageId, source) {
  return p.seen.ends.filter(e => e.sent.messageId === messageId && e.sent.source === source);
}
function expectEndedOk(exchange, sent, source, what) {
  expect(exchange, `${what}: no EndTransaction of ${sent.messageId} (${source}) was made`);
  expect(exchange.answer && exchange.answer.status && exchange.answer.status.code === CODE_OK,
    `${what}: EndTransaction ${JSON.stringify(exchange.sent)} answered ` +
    `${exchange.answer ? JSON.stringify(exchange.answer) : exchange.error || 'nothing yet'}`);
  expect(exchange.sent.resolution === sent.resolution && exchange.sent.topic === topic,
    `${what}: EndTransaction ${JSON.stringify(exchange.sent)} does not end ${sent.messageId} of ${topic} with ${sent.resolution}`);
}

// ---- SimpleConsumer (RocketMQ 5's pop-based consumption through the proxy) ----

// A receipt handle for logs and result lines: whole unless it is long.
function short(handle) {
  return typeof handle === 'string' && handle.length > 96 ? `${handle.slice(0, 96)}...(${handle.length} chars)` : handle;
}
function md5Upper(bytes) {
  return crypto.createHash('md5').update(bytes).digest('hex').toUpperCase();
}
// The raw fields of every message received, by receipt handle.
const rawByHandle = new Map();

// A SimpleConsumer of `group` subscribed to `topic` with tag expression '*', with every exchange
// it has with the proxy recorded and logged: the Settings issued on the telemetry stream, each
// ReceiveMessage (request, the stream's statuses and messages), each AckMessage and
// ChangeInvisibleDuration (request and response). The ReceiveMessage stream is checked as it
// arrives, as RocketMQ 5's proxy writes it: exactly one status, OK before the messages or a lone
// MESSAGE_NOT_FOUND; each message with its id, a receipt handle, a delivery attempt >= 1, the topic
// asked for and an MD5 body digest (uppercase hex) that matches the body.
function newConsumer(group, awaitDuration = AWAIT_MS) {
  const consumer = new SimpleConsumer({
    endpoints, namespace: '', requestTimeout: REQUEST_TIMEOUT_MS, logger, consumerGroup: group, sessionCredentials, sslEnabled,
    subscriptions: new Map([ [ topic, '*' ] ]), awaitDuration,
    maxRetryAttempts: 1,  // an INTERNAL_ERROR fails the scenario instead of being retried
  });
  const seen = { settings: [], receives: [], acks: [], changes: [] };
  const onSettings = consumer.onSettingsCommand.bind(consumer);
  consumer.onSettingsCommand = (from, settings) => {
    seen.settings.push(settings.toObject());
    return onSettings(from, settings);
  };
  const manager = consumer.getRpcClientManager();

  const receiveMessage = manager.receiveMessage.bind(manager);
  manager.receiveMessage = async (to, request, timeout) => {
    const r = request.toObject();
    const sent = {
      group: r.group && r.group.name, topic: r.messageQueue && r.messageQueue.topic.name,
      queueId: r.messageQueue && r.messageQueue.id, broker: r.messageQueue && r.messageQueue.broker.name,
      filter: r.filterExpression, batchSize: r.batchSize, autoRenew: r.autoRenew,
      invisibleMs: r.invisibleDuration && r.invisibleDuration.seconds * 1000 + r.invisibleDuration.nanos / 1e6,
      longPollingMs: r.longPollingTimeout && r.longPollingTimeout.seconds * 1000 + r.longPollingTimeout.nanos / 1e6,
    };
    const started = Date.now();
    let responses;
    try {
      responses = await receiveMessage(to, request, timeout);
    } catch (err) {
      log('INFO', [ `ReceiveMessage ${JSON.stringify(sent)} failed after ${Date.now() - started} ms: ${describe(err)}` ]);
      seen.receives.push({ sent, error: describe(err), ms: Date.now() - started });
      throw err;
    }
    const stream = [];  // the stream as it came: statuses and messages in order
    const problems = [];
    for (const response of responses) {
      switch (response.getContentCase()) {
        case ContentCase.STATUS:
          stream.push({ status: response.getStatus().toObject() });
          break;
        case ContentCase.MESSAGE: {
          const m = response.getMessage();
          const sp = m.getSystemProperties();
          const digest = sp.getBodyDigest() ? sp.getBodyDigest().toObject() : undefined;
          const body = Buffer.from(m.getBody_asU8());
          const raw = {
            messageId: sp.getMessageId(), topic: m.getTopic() && m.getTopic().getName(), queueId: sp.getQueueId(),
            queueOffset: sp.getQueueOffset(), deliveryAttempt: sp.getDeliveryAttempt(), tag: sp.getTag(),
            messageGroup: sp.getMessageGroup(), bodyEncoding: sp.getBodyEncoding(), digest,
            receiptHandle: sp.getReceiptHandle(), bodyBytes: body.length,
          };
          stream.push({ message: Object.assign({}, raw, { receiptHandle: short(raw.receiptHandle) }) });
          if (!raw.messageId) problems.push('a message without message_id');
          if (!raw.receiptHandle) problems.push(`message ${raw.messageId} has no receipt_handle`);
          if (!(raw.deliveryAttempt >= 1)) problems.push(`message ${raw.messageId} has delivery_attempt ${raw.deliveryAttempt}`);
          if (raw.topic !== topic) problems.push(`message ${raw.messageId} names topic ${raw.topic}, not ${topic}`);
          if (!digest || digest.type !== DIGEST_MD5 || digest.checksum !== md5Upper(body)) {
            problems.push(`message ${raw.messageId} has body_digest ${JSON.stringify(digest)}; ` +
              `the MD5 of its ${body.length}-byte body is ${md5Upper(body)} (type MD5 = ${DIGEST_MD5})`);
          }
          if (raw.receiptHandle) rawByHandle.set(raw.receiptHandle, raw);
          break;
        }
        case ContentCase.DELIVERY_TIMESTAMP:
          stream.push({ deliveryTimestamp: response.getDeliveryTimestamp().toDate().toISOString() });
          break;
        default:
          stream.push({ unknown: response.getContentCase() });
      }
    }
    const ms = Date.now() - started;
    log('INFO', [ `ReceiveMessage ${JSON.stringify(sent)} answered in ${ms} ms: ${JSON.stringify(stream)}` ]);
    seen.receives.push({ sent, stream, ms });
    const statuses = stream.filter(e => e.status).map(e => e.status);
    const messages = stream.filter(e => e.message);
    const firstMessage = stream.findIndex(e => e.message);
    if (statuses.length !== 1) {
      problems.push(`the stream carries ${statuses.length} statuses, not one`);
    } else if (messages.length > 0 && (statuses[0].code !== CODE_OK || stream.findIndex(e => e.status) > firstMessage)) {
      problems.push('the messages are not preceded by a status OK');
    } else if (messages.length === 0 && statuses[0].code !== CODE_MESSAGE_NOT_FOUND) {
      problems.push(`no message came, with status ${JSON.stringify(statuses[0])} instead of MESSAGE_NOT_FOUND (${CODE_MESSAGE_NOT_FOUND})`);
    }
    if (problems.length) {
      throw new Error(`ReceiveMessage ${JSON.stringify(sent)} answered a stream RocketMQ 5's proxy would not: ` +
        `${problems.join('; ')}; the stream: ${JSON.stringify(stream)}`);
    }
    return responses;
  };

  const ackMessage = manager.ackMessage.bind(manager);
  manager.ackMessage = async (to, request, timeout) => {
    const sent = request.toObject();
    sent.entriesList = sent.entriesList.map(e => ({ messageId: e.messageId, receiptHandle: short(e.receiptHandle) }));
    try {
      const response = await ackMessage(to, request, timeout);
      const answer = response.toObject();
      answer.entriesList = answer.entriesList.map(e => Object.assign({}, e, { receiptHandle: short(e.receiptHandle) }));
      log('INFO', [ `AckMessage ${JSON.stringify(sent)} answered ${JSON.stringify(answer)}` ]);
      seen.acks.push({ sent, answer });
      return response;
    } catch (err) {
      log('INFO', [ `AckMessage ${JSON.stringify(sent)} failed: ${describe(err)}` ]);
      seen.acks.push({ sent, error: describe(err) });
      throw err;
    }
  };

  const changeInvisibleDuration = manager.changeInvisibleDuration.bind(manager);
  manager.changeInvisibleDuration = async (to, request, timeout) => {
    const sent = request.toObject();
    sent.receiptHandle = short(sent.receiptHandle);
    try {
      const response = await changeInvisibleDuration(to, request, timeout);
      const answer = response.toObject();
      answer.receiptHandle = short(answer.receiptHandle);
      log('INFO', [ `ChangeInvisibleDuration ${JSON.stringify(sent)} answered ${JSON.stringify(answer)}` ]);
      seen.changes.push({ sent, answer });
      return response;
    } catch (err) {
      log('INFO', [ `ChangeInvisibleDuration ${JSON.stringify(sent)} failed: ${describe(err)}` ]);
      seen.changes.push({ sent, error: describe(err) });
      throw err;
    }
  };
  clients.push(consumer);
  return { consumer, seen, group, awaitDuration };
}

// Starts a consumer: a route of `topic` (QueryRoute) and the first Settings on the telemetry
// stream are needed before startup() returns. The Settings must carry the subscription part
// (RocketMQ 5's proxy fills in fifo from the group's consume_message_orderly and the backoff
// policy's max_attempts as the group's retry_max_times + 1); the route must offer a readable
// queue 0, the only queues rocketmq-client-nodejs 1.0.8 receives from (SubscriptionLoadBalancer).
async function startConsumer(group, { fifo = false, awaitDuration = AWAIT_MS } = {}) {
  expect(group, `scenario ${scenario} needs a consumer group: node scenarios.js ${scenario} <proxy> <topic> <group>`);
  const c = newConsumer(group, awaitDuration);
  await within(STARTUP_MS, `consumer startup (QueryRoute + Telemetry settings), group ${group}`, c.consumer.startup());
  expect(c.seen.settings.length > 0, 'consumer startup returned without Settings from the proxy');
  const settings = c.seen.settings[0];
  result('consumer_settings', { group, settings });
  expect(settings.subscription,
    `the proxy's Settings for a SIMPLE_CONSUMER carry no subscription part: ${JSON.stringify(settings)}`);
  expect(Boolean(settings.subscription.fifo) === fifo,
    `the proxy's Settings say subscription.fifo = ${settings.subscription.fifo} for group ${group}, ` +
    `which was created with consume_message_orderly = ${fifo}`);
  const route = c.consumer.topicRouteCache.get(topic);
  expect(route, `no route cached for ${topic}`);
  const readable = route.messageQueues.filter(q => q.permission === READ || q.permission === READ_WRITE);
  expect(readable.length > 0, `the route of ${topic} has no readable queue`);
  for (const q of readable) {
    expect(q.broker.endpoints.facade === endpoints,
      `the route sends consumers to ${q.broker.endpoints.facade}, not to the proxy ${endpoints}`);
  }
  expect(readable.some(q => q.queueId === 0),
    'no readable queue 0 in the route: rocketmq-client-nodejs 1.0.8 receives only from queues with id 0');
  return c;
}

// QueryAssignment for `topic` and the consumer's group, through the consumer's own channel (the
// request PushConsumer makes; SimpleConsumer makes none). Printed as a result line; the caller
// checks the queues.
async function queryAssignments(c) {
  const request = new QueryAssignmentRequest()
    .setTopic(new Resource().setName(topic))
    .setGroup(new Resource().setName(c.group))
    .setEndpoints(c.consumer.getEndpoints().toProtobuf());
  const response = await within(REQUEST_TIMEOUT_MS + 1000, 'QueryAssignment',
    c.consumer.getRpcClientManager().queryAssignment(c.consumer.getEndpoints(), request, REQUEST_TIMEOUT_MS));
  const status = response.getStatus() ? response.getStatus().toObject() : undefined;
  const assignments = response.getAssignmentsList().map(a => {
    const mq = a.getMessageQueue();
    const broker = mq.getBroker();
    const addresses = broker && broker.getEndpoints() ? broker.getEndpoints().getAddressesList() : [];
    return {
      topic: mq.getTopic() && mq.getTopic().getName(), queueId: mq.getId(),
      permission: Permission[mq.getPermission()] || mq.getPermission(),
      broker: broker && broker.getName(), endpoints: addresses.map(addr => `${addr.getHost()}:${addr.getPort()}`).join(','),
    };
  });
  result('assignments', { group: c.group, status, assignments });
  expect(status && status.code === CODE_OK, `QueryAssignment answered ${JSON.stringify(status)}`);
  expect(assignments.length > 0, `QueryAssignment of ${topic} for ${c.group} assigned no queue`);
  for (const a of assignments) {
    expect(a.topic === topic, `an assignment names topic ${a.topic}, not ${topic}`);
    expect(a.endpoints === endpoints, `an assignment sends the consumer to ${a.endpoints}, not to the proxy ${endpoints}`);
    expect(a.permission === 'READ' || a.permission === 'READ_WRITE', `an assignment's queue is ${a.permission}`);
  }
  return assignments;
}

// One receive, bounded: the client's own deadline is its request timeout + the long polling.
function receive(c, maxMessages, invisibleMs) {
  return within(c.awaitDuration + REQUEST_TIMEOUT_MS + 3000, `ReceiveMessage (batch ${maxMessages}, invisible ${invisibleMs} ms)`,
    c.consumer.receive(maxMessages, invisibleMs));
}

// What a received message carries, for result lines and messages (the queue id from the raw
// message: MessageView keeps none).
function view(m) {
  const raw = rawByHandle.get(m.receiptHandle);
  return {
    messageId: m.messageId, topic: m.topic, body: m.body.toString(), tag: m.tag || undefined, keys: m.keys,
    properties: Object.fromEntries(m.properties), messageGroup: m.messageGroup || undefined,
    deliveryAttempt: m.deliveryAttempt, queueId: raw ? raw.queueId : undefined, queueOffset: m.offset,
    receiptHandle: short(m.receiptHandle),
  };
}

// Acks one message with the receipt handle it now holds; the proxy's answer must be OK for the
// request and for the message's entry (the client itself looks only at the first).
async function ack(c, m) {
  const before = c.seen.acks.length;
  await within(REQUEST_TIMEOUT_MS + 1000, `AckMessage of ${m.messageId}`, c.consumer.ack(m));
  const exchange = c.seen.acks[before];
  expect(exchange && exchange.answer, `no AckMessage answer recorded for ${m.messageId}`);
  const entries = exchange.answer.entriesList;
  expect(entries.length === 1 && entries[0].status && entries[0].status.code === CODE_OK &&
    entries[0].messageId === m.messageId,
  `AckMessage of ${m.messageId} (receipt handle ${short(m.receiptHandle)}) answered ${JSON.stringify(exchange.answer)}`);
  result('ack', { messageId: m.messageId, receiptHandle: short(m.receiptHandle) });
}

// Receives for `ms` (at least one receive) and returns everything that came, unacked.
async function receiveFor(c, ms, maxMessages, invisibleMs) {
  const until = Date.now() + ms;
  const got = [];
  do {
    got.push(...await receive(c, maxMessages, invisibleMs));
  } while (Date.now() < until);
  return got;
}

function receivesSummary(c) {
  return JSON.stringify(c.seen.receives.map(r => ({
    queueId: r.sent.queueId, ms: r.ms, error: r.error,
    statuses: r.stream && r.stream.filter(e => e.status).map(e => e.status.code),
    messages: r.stream && r.stream.filter(e => e.message).map(e => e.message.messageId),
  })));
}

// Produces one NORMAL message and returns what was sent with its receipt.
async function produceOne(tag, body) {
  const p = await startProducer();
  checkRoute(p.producer, NORMAL);
  const receipt = await sendChecked(p, { topic, tag, keys: [ `${scenario}-key` ], body: Buffer.from(body) }, 0);
  result('receipt', { body, tag, messageId: receipt.messageId, offset: receipt.offset });
  return { messageId: receipt.messageId, body, tag };
}

// Receives until the message `messageId` comes (other messages fail the scenario), within `ms`.
// Returns it with the time the successful ReceiveMessage was sent (the earliest the proxy can have
// made it invisible) and the time its answer came (the latest).
async function receiveThe(c, messageId, ms, invisibleMs, what) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const sentAt = Date.now();
    const messages = await receive(c, 1, invisibleMs);
    const at = Date.now();
    for (const m of messages) {
      expect(m.messageId === messageId, `${what}: received ${JSON.stringify(view(m))}, not message ${messageId}`);
    }
    if (messages.length) return { m: messages[0], sentAt, at };
  }
  throw new Error(`${what}: message ${messageId} did not come within ${ms} ms; ReceiveMessage calls: ${receivesSummary(c)}`);
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
  // A producer whose account the proxy's ACL refuses (none, an unknown one, a wrong secret, or
  // one without PUB on the topic): its startup's first call is answered UNAUTHORIZED.
  async unauthorized() {
    const refused = newProducer(true);
    let startupError;
    try {
      await within(STARTUP_MS, 'startup of a producer the ACL refuses', refused.producer.startup());
    } catch (err) {
      startupError = err;
    }
    expect(startupError, `a producer of ${topic} started though the proxy's ACL should refuse it`);
    const status = clientExceptionIn(startupError);
    result('startup_error', { error: describe(startupError), code: status && status.code });
    expect(status && status.code === CODE_UNAUTHORIZED,
      `the startup failed, but not with UNAUTHORIZED from the proxy: ${describe(startupError)}`);
  },

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

  // Two transactions, each of one message: the first committed, the second rolled back, each
  // ended (EndTransaction, source CLIENT) right after its send. The receipts carry the resolution,
  // for the test to find the committed message in the topic and never the rolled back one. The
  // producer stays up past the broker's transaction timeout and check interval (1 s each in the
  // test): no check may come for transactions that were ended.
  async transaction() {
    const { checker, calls } = newChecker();
    const p = await startProducer(checker);
    checkRoute(p.producer, TRANSACTION);
    let index = 0;
    for (const resolution of [ 'COMMIT', 'ROLLBACK' ]) {
      const { transaction, sent } = await sendInTransaction(p, resolution, index++);
      const before = p.seen.ends.length;
      await within(REQUEST_TIMEOUT_MS + 1000, `${resolution} of the transaction of ${sent.messageId}`,
        resolution === 'COMMIT' ? transaction.commit() : transaction.rollback());
      const exchange = p.seen.ends[before];
      expectEndedOk(exchange, sent, 'SOURCE_CLIENT', resolution);
      expect(exchange.sent.source === 'SOURCE_CLIENT' && exchange.sent.transactionId === sent.transactionId,
        `${resolution}: EndTransaction ${JSON.stringify(exchange.sent)} is not the client's end of transaction ${sent.transactionId}`);
      result('receipt', Object.assign(sent, { endStatus: exchange.answer.status }));
    }
    await sleep(3000);
    result('checks', { checks: calls, recoveries: p.seen.recoveries });
    expect(p.seen.recoveries.length === 0,
      `the proxy asked to check transactions the client had already ended: ${JSON.stringify(p.seen.recoveries)}`);
  },

  // Two transactions never ended by the client: the message of one says COMMIT, the other's
  // ROLLBACK (user property `resolution`). The broker checks them once they are older than its
  // transaction timeout; the proxy sends each check to this producer (RecoverOrphanedTransaction-
  // Command on the telemetry stream); the client asks the checker and answers with EndTransaction
  // (source SERVER_CHECK). The producer stays up until both are checked and ended (bounded), then
  // a moment more.
  async orphan_transaction() {
    const waitMs = Number(arg || 30000);
    const { checker, calls } = newChecker();
    const p = await startProducer(checker);
    checkRoute(p.producer, TRANSACTION);
    const sent = [];
    for (const resolution of [ 'COMMIT', 'ROLLBACK' ]) {
      const s = (await sendInTransaction(p, resolution, sent.length)).sent;
      sent.push(s);
      result('receipt', Object.assign({ sentAt: Date.now() }, s));
    }
    const sentAt = Date.now();
    const ended = s => endsOf(p, s.messageId, 'SOURCE_SERVER_CHECK').some(e => e.answer || e.error);
    while (!sent.every(ended)) {
      if (Date.now() - sentAt > waitMs) {
        const pending = sent.filter(s => !ended(s)).map(s => `${s.messageId} (${s.resolution})`);
        throw new Error(`no check of ${pending.join(', ')} was answered within ${waitMs} ms of the sends ` +
          `(the broker's transaction timeout and check interval should be short); ` +
          `RecoverOrphanedTransactionCommands from the proxy: ${JSON.stringify(p.seen.recoveries)}; ` +
          `checker calls: ${JSON.stringify(calls)}; EndTransaction exchanges: ${JSON.stringify(p.seen.ends)}`);
      }
      await sleep(100);
    }
    const checkedMs = Date.now() - sentAt;
    for (const s of sent) {
      const recoveries = p.seen.recoveries.filter(r => r.message && r.message.messageId === s.messageId);
      const first = recoveries[0];
      expect(first, `EndTransaction for ${s.messageId} without a RecoverOrphanedTransactionCommand naming it`);
      const m = first.message;
      expect(m.topic === topic && m.body === s.body && m.tag === s.tag &&
        JSON.stringify(m.keys) === JSON.stringify(s.keys) && sameProperties(m.properties, s.properties),
      `the message of the check of ${s.messageId} is not the one sent: ${JSON.stringify(m)}; sent ${JSON.stringify(s)}`);
      expect(m.messageType === 'TRANSACTION', `the message of the check of ${s.messageId} has type ${m.messageType}`);
      expect(m.digest && m.digest.checksum === m.md5,
        `the message of the check of ${s.messageId} has body digest ${JSON.stringify(m.digest)}; its MD5 is ${m.md5}`);
      expect(calls.some(c => c.messageId === s.messageId), `the checker was never asked about ${s.messageId}`);
      const exchange = endsOf(p, s.messageId, 'SOURCE_SERVER_CHECK')[0];
      expectEndedOk(exchange, s, 'SOURCE_SERVER_CHECK', `the check of ${s.messageId}`);
      expect(exchange.sent.transactionId === first.transactionId,
        `EndTransaction ${JSON.stringify(exchange.sent)} does not name the transaction id of the check, ${first.transactionId}`);
      expect(endsOf(p, s.messageId, 'SOURCE_CLIENT').length === 0, `the client ended ${s.messageId} itself`);
    }
    // A moment more: once ended, a transaction is not checked again (printed, for the test's log).
    await sleep(2500);
    result('checks', { checkedMs, checks: calls, recoveries: p.seen.recoveries, ends: p.seen.ends });
  },

  // N messages (tag, keys, user properties) from a Producer, then a SimpleConsumer of the group
  // receives until it has every one (each delivered once, attempt 1, as sent) and acks each as it
  // comes. Acked messages never come back: receives go on past the invisible duration and get
  // nothing. QueryAssignment for a group that is not orderly: one queue per broker, id -1.
  async simple_consume() {
    const group = args[0];
    const count = Number(args[1] || 8);
    const invisibleMs = Number(args[2] || 5000);
    const p = await startProducer();
    checkRoute(p.producer, NORMAL);
    const sent = new Map();
    for (let i = 0; i < count; i++) {
      const tag = i % 2 === 0 ? 'TagA' : 'TagB';
      const keys = [ `key-${i}`, `order-${2000 + i}` ];
      const properties = { 'index': String(i), 'origin': 'grpc-nodejs-consume', 'with space': `v ${i}` };
      const body = `consume-${i}`;
      const receipt = await sendChecked(p, { topic, tag, keys, properties: new Map(Object.entries(properties)),
        body: Buffer.from(body) }, i);
      sent.set(receipt.messageId, { index: i, body, tag, keys, properties });
      result('receipt', { index: i, body, tag, keys, properties, messageId: receipt.messageId, offset: receipt.offset });
    }

    const c = await startConsumer(group);
    const assignments = await queryAssignments(c);
    const brokers = new Set(assignments.map(a => a.broker));
    expect(brokers.size === assignments.length && assignments.every(a => a.queueId === -1),
      `QueryAssignment for ${group}, not orderly, should assign one queue per broker with id -1: ${JSON.stringify(assignments)}`);

    const received = new Map();
    const deadline = Date.now() + 45000;
    while (received.size < count) {
      if (Date.now() > deadline) {
        const missing = [ ...sent.keys() ].filter(id => !received.has(id)).map(id => `${id} (${sent.get(id).body})`);
        throw new Error(`received ${received.size} of ${count} messages in 45 s; missing ${missing.join(', ')}; ` +
          `ReceiveMessage calls: ${receivesSummary(c)}`);
      }
      for (const m of await receive(c, 16, invisibleMs)) {
        const v = view(m);
        result('message', v);
        const s = sent.get(m.messageId);
        expect(s, `received a message that was not sent: ${JSON.stringify(v)}`);
        expect(!received.has(m.messageId), `message ${m.messageId} delivered twice: ${JSON.stringify(received.get(m.messageId))}, then ${JSON.stringify(v)}`);
        received.set(m.messageId, v);
        expect(!m.corrupted, `message ${m.messageId}: the client finds its body digest wrong`);
        expect(v.topic === topic, `message ${m.messageId} names topic ${v.topic}`);
        expect(v.body === s.body, `message ${m.messageId} has body ${JSON.stringify(v.body)}, sent ${JSON.stringify(s.body)}`);
        expect(v.tag === s.tag, `message ${m.messageId} has tag ${v.tag}, sent ${s.tag}`);
        expect(JSON.stringify(v.keys) === JSON.stringify(s.keys), `message ${m.messageId} has keys ${JSON.stringify(v.keys)}, sent ${JSON.stringify(s.keys)}`);
        expect(JSON.stringify(v.properties) === JSON.stringify(s.properties),
          `message ${m.messageId} has user properties ${JSON.stringify(v.properties)}, sent ${JSON.stringify(s.properties)} ` +
          '(system properties must not show among them)');
        expect(v.deliveryAttempt === 1, `message ${m.messageId}, never delivered before, has delivery attempt ${v.deliveryAttempt}`);
        await ack(c, m);
      }
    }
    // Past the invisible duration of the last receive, nothing comes back.
    const again = await receiveFor(c, invisibleMs + 2000, 16, invisibleMs);
    result('after_acks', { messages: again.map(view) });
    expect(again.length === 0, `after all ${count} messages were acked, receives returned ${JSON.stringify(again.map(view))}`);
  },

  // One message received with a short invisible duration and not acked comes back after it: the
  // same message id, delivery attempt 2, a new receipt handle. Acked then, it never comes back.
  async redelivery() {
    const group = args[0];
    const invisibleMs = Number(args[1] || 2000);
    const sent = await produceOne('Redelivery', `redelivery-${Date.now()}`);
    const c = await startConsumer(group);
    const first = await receiveThe(c, sent.messageId, 30000, invisibleMs, 'first delivery');
    result('delivery', Object.assign(view(first.m), { at: first.at }));
    expect(first.m.body.toString() === sent.body, `message ${sent.messageId} has body ${first.m.body}`);
    expect(first.m.deliveryAttempt === 1, `the first delivery of ${sent.messageId} has delivery attempt ${first.m.deliveryAttempt}`);
    // Not acked: it comes back once its invisible duration is over, not before.
    const again = await receiveThe(c, sent.messageId, invisibleMs + 30000, invisibleMs, 'delivery after the invisible duration');
    const second = again.m;
    const afterMs = again.at - first.sentAt;  // at least the time between the two pops
    result('delivery', Object.assign(view(second), { at: again.at, afterMs }));
    expect(afterMs >= invisibleMs,
      `message ${sent.messageId} came back at most ${afterMs} ms after its first delivery, within its invisible duration of ${invisibleMs} ms`);
    expect(second.deliveryAttempt === 2, `the second delivery of ${sent.messageId} has delivery attempt ${second.deliveryAttempt}, not 2`);
    expect(second.body.toString() === sent.body && second.tag === sent.tag && second.topic === topic,
      `the second delivery differs from the message sent: ${JSON.stringify(view(second))}`);
    expect(second.receiptHandle !== first.m.receiptHandle, 'the second delivery carries the receipt handle of the first');
    await ack(c, second);
    const after = await receiveFor(c, invisibleMs + 3000, 1, invisibleMs);
    result('after_acks', { messages: after.map(view) });
    expect(after.length === 0, `after the ack, receives returned ${JSON.stringify(after.map(view))}`);
  },

  // A message received with a short invisible duration, then given a longer one through
  // ChangeInvisibleDuration: it does not come back when the first would have run out, and the new
  // receipt handle acks it (it never comes back, not even after the longer duration).
  async change_invisible() {
    const group = args[0];
    const invisibleMs = Number(args[1] || 2000);
    const changedMs = Number(args[2] || 10000);
    const sent = await produceOne('ChangeInvisible', `change-invisible-${Date.now()}`);
    const c = await startConsumer(group);
    const { m, sentAt, at: receivedAt } = await receiveThe(c, sent.messageId, 30000, invisibleMs, 'first delivery');
    const firstHandle = m.receiptHandle;
    result('delivery', Object.assign(view(m), { at: receivedAt }));
    expect(m.deliveryAttempt === 1, `the first delivery of ${sent.messageId} has delivery attempt ${m.deliveryAttempt}`);
    const changeSentAt = Date.now();
    await within(REQUEST_TIMEOUT_MS + 1000, 'ChangeInvisibleDuration', c.consumer.changeInvisibleDuration(m, changedMs));
    const changedAt = Date.now();
    const exchange = c.seen.changes[c.seen.changes.length - 1];
    result('changed', { messageId: m.messageId, invisibleMs: changedMs, afterMs: changedAt - receivedAt,
      oldReceiptHandle: short(firstHandle), newReceiptHandle: short(m.receiptHandle), answer: exchange && exchange.answer });
    expect(exchange && exchange.answer && exchange.answer.status.code === CODE_OK,
      `ChangeInvisibleDuration answered ${JSON.stringify(exchange)}`);
    expect(typeof m.receiptHandle === 'string' && m.receiptHandle.length > 0,
      'ChangeInvisibleDuration answered no receipt handle');
    expect(changedAt - sentAt < invisibleMs,
      `too slow: ChangeInvisibleDuration was answered ${changedAt - sentAt} ms after the ReceiveMessage was sent, ` +
      `past the invisible duration of ${invisibleMs} ms`);
    // Well past the first invisible duration, and short of the new one (the last receive may end a
    // long polling after `until`): nothing.
    const until = changeSentAt + changedMs - c.awaitDuration - 1000;
    expect(until - receivedAt >= invisibleMs + 2000,
      `the changed invisible duration (${changedMs} ms) leaves too little time to look past the first (${invisibleMs} ms)`);
    const during = await receiveFor(c, until - Date.now(), 1, invisibleMs);
    result('while_invisible', { messages: during.map(view), untilMs: Date.now() - receivedAt });
    expect(during.length === 0,
      `message ${sent.messageId} came back though its invisible duration was changed to ${changedMs} ms: ${JSON.stringify(during.map(view))}`);
    expect(Date.now() - changeSentAt < changedMs, 'too slow to look while the changed invisible duration lasts');
    await ack(c, m);
    // Past the changed invisible duration too: the ack with the new handle held.
    const after = await receiveFor(c, changeSentAt + changedMs + 3000 - Date.now(), 1, invisibleMs);
    result('after_acks', { messages: after.map(view), untilMs: Date.now() - receivedAt });
    expect(after.length === 0, `after the ack with the new receipt handle, receives returned ${JSON.stringify(after.map(view))}`);
  },

  // FIFO messages of three message groups, interleaved, consumed by an orderly group: within a
  // message group they arrive in send order, and none arrives while an earlier one of its group,
  // received by an earlier receive, is not yet acked (each batch is followed by one more receive
  // before the acks).
  // Batches of 2, fewer than a message group has, so that the rest of a group must wait for the
  // acks. QueryAssignment for an orderly group: one assignment per queue.
  // A PushConsumer of the group consumes what a producer sent: its listener takes `ms each message
  // takes` per message (longer than the proxy's default invisible time, the proxy holding the
  // messages meanwhile) and fails the first delivery of the first message, which must come back
  // with delivery attempt 2. Every message must be consumed successfully exactly once.
  async push_consume() {
    const group = args[0];
    expect(group, 'push_consume needs a consumer group');
    const count = Number(args[1] || 4);
    const consumeMs = Number(args[2] || 0);
    const p = await startProducer();
    checkRoute(p.producer, NORMAL);
    const sent = new Map();
    for (let i = 0; i < count; i++) {
      const body = `push-${i}`;
      const receipt = await sendChecked(p, { topic, tag: 'TagA', keys: [ body ], body: Buffer.from(body) }, i);
      sent.set(receipt.messageId, body);
      result('receipt', { index: i, body, messageId: receipt.messageId, offset: receipt.offset });
    }
    const first = [ ...sent.keys() ][0];
    const deliveries = new Map();  // message id -> delivery attempts seen
    const successes = new Map();   // message id -> successful consumptions
    const consumer = new PushConsumer({
      endpoints, namespace: '', requestTimeout: REQUEST_TIMEOUT_MS, logger, consumerGroup: group, sessionCredentials,
      sslEnabled, subscriptions: new Map([ [ topic, '*' ] ]), longPollingTimeout: AWAIT_MS,
      messageListener: {
        async consume(m) {
          const attempts = deliveries.get(m.messageId) || [];
          attempts.push(m.deliveryAttempt);
          deliveries.set(m.messageId, attempts);
          result('push_message', { messageId: m.messageId, body: m.body.toString(), deliveryAttempt: m.deliveryAttempt });
          if (consumeMs > 0) await sleep(consumeMs);
          if (m.messageId === first && attempts.length === 1) return ConsumeResult.FAILURE;
          successes.set(m.messageId, (successes.get(m.messageId) || 0) + 1);
          return ConsumeResult.SUCCESS;
        },
      },
    });
    clients.push(consumer);
    await within(STARTUP_MS, `push consumer startup, group ${group}`, consumer.startup());
    const deadline = Date.now() + 60000;
    while ([ ...sent.keys() ].some(id => !successes.has(id))) {
      if (Date.now() > deadline) {
        throw new Error(`consumed ${successes.size} of ${count} messages in 60 s; deliveries ${JSON.stringify([ ...deliveries ])}`);
      }
      await sleep(200);
    }
    await sleep(3000);  // time for a duplicate to show up
    for (const [ id, n ] of successes) {
      expect(sent.has(id), `consumed a message that was not sent: ${id}`);
      expect(n === 1, `message ${id} (${sent.get(id)}) was consumed successfully ${n} times`);
    }
    expect(JSON.stringify(deliveries.get(first)) === '[1,2]',
      `the failed message ${first} was delivered with attempts ${JSON.stringify(deliveries.get(first))}, not [1,2]`);
    result('push_summary', { deliveries: Object.fromEntries(deliveries) });
  },

  async fifo_consume() {
    const group = args[0];
    const perGroup = Number(args[1] || 4);
    const invisibleMs = 20000;
    const groups = [ 'group-a', 'group-b', 'group-c' ];
    const p = await startProducer();
    checkRoute(p.producer, FIFO);
    const sent = new Map();
    let index = 0;
    for (let seq = 0; seq < perGroup; seq++) {
      for (const messageGroup of groups) {
        const body = `fifo-${messageGroup}-${seq}`;
        const receipt = await sendChecked(p, { topic, tag: 'Fifo', messageGroup, body: Buffer.from(body) }, index++);
        sent.set(receipt.messageId, { messageGroup, seq, body });
        result('receipt', { group: messageGroup, seq, body, messageId: receipt.messageId, offset: receipt.offset });
      }
    }

    const c = await startConsumer(group, { fifo: true });
    const assignments = await queryAssignments(c);
    const queues = new Set(assignments.map(a => `${a.broker}/${a.queueId}`));
    expect(queues.size === assignments.length && assignments.every(a => a.queueId >= 0),
      `QueryAssignment for the orderly group ${group} should assign each queue once: ${JSON.stringify(assignments)}`);

    const next = new Map(groups.map(g => [ g, 0 ]));  // the next seq each message group must deliver
    const inFlight = [];  // received, not yet acked, in the order received
    let received = 0;
    const take = messages => {
      // One receive may carry several messages of a message group, in order; a later receive none
      // of a group whose earlier messages are still unacked.
      const unacked = new Map(inFlight.map(f => [ sent.get(f.messageId).messageGroup, sent.get(f.messageId).body ]));
      for (const m of messages) {
        const v = view(m);
        result('message', v);
        const s = sent.get(m.messageId);
        expect(s, `received a message that was not sent: ${JSON.stringify(v)}`);
        expect(!m.corrupted, `message ${m.messageId}: the client finds its body digest wrong`);
        expect(v.messageGroup === s.messageGroup, `message ${s.body} carries message group ${v.messageGroup}, sent with ${s.messageGroup}`);
        expect(v.deliveryAttempt === 1, `message ${s.body} has delivery attempt ${v.deliveryAttempt}`);
        expect(!unacked.has(s.messageGroup),
          `received ${s.body} while ${unacked.get(s.messageGroup)}, received by an earlier receive, was not acked yet`);
        expect(s.seq === next.get(s.messageGroup),
          `message group ${s.messageGroup}: received ${s.body} (sent #${s.seq}) when #${next.get(s.messageGroup)} was due`);
        next.set(s.messageGroup, s.seq + 1);
        inFlight.push(m);
        received++;
      }
    };
    const deadline = Date.now() + 50000;
    while (received < sent.size) {
      if (Date.now() > deadline) {
        throw new Error(`received ${received} of ${sent.size} FIFO messages in 50 s; next due per message group: ` +
          `${JSON.stringify(Object.fromEntries(next))}; ReceiveMessage calls: ${receivesSummary(c)}`);
      }
      const batch = await receive(c, 2, invisibleMs);
      take(batch);
      if (batch.length === 0) continue;
      if (received < sent.size) take(await receive(c, 2, invisibleMs));  // before acking: nothing of those groups
      while (inFlight.length) await ack(c, inFlight.shift());  // one by one, in the order received
    }
    const again = await receiveFor(c, c.awaitDuration, 4, invisibleMs);
    result('after_acks', { messages: again.map(view) });
    expect(again.length === 0, `after all FIFO messages were acked, receives returned ${JSON.stringify(again.map(view))}`);
  },

  // A message never acked is delivered `max attempts` times (the group's retry_max_times + 1, as
  // RocketMQ 5's proxy counts), then no more: it goes to %DLQ%<group>, which the test looks at.
  async dead_letter() {
    const group = args[0];
    const maxAttempts = Number(args[1] || 2);
    const invisibleMs = Number(args[2] || 2000);
    const sent = await produceOne('DeadLetter', `dead-letter-${Date.now()}`);
    const c = await startConsumer(group);
    const maxAttemptsSet = c.seen.settings[0].backoffPolicy && c.seen.settings[0].backoffPolicy.maxAttempts;
    let lastAt = 0;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const { m, at } = await receiveThe(c, sent.messageId, invisibleMs + 30000, invisibleMs, `delivery attempt ${attempt}`);
      result('delivery', Object.assign(view(m), { at, afterMs: lastAt ? at - lastAt : 0 }));
      expect(m.deliveryAttempt === attempt, `delivery #${attempt} of ${sent.messageId} has delivery attempt ${m.deliveryAttempt}`);
      lastAt = at;
    }
    // One more invisible duration (and the broker's time to revive it) later: no attempt beyond.
    const after = await receiveFor(c, invisibleMs + 10000, 1, invisibleMs);
    result('after_attempts', { messages: after.map(view), settingsMaxAttempts: maxAttemptsSet });
    expect(after.length === 0, `after ${maxAttempts} delivery attempts (the Settings' max_attempts: ${maxAttemptsSet}), ` +
      `receives returned ${JSON.stringify(after.map(view))}`);
  },
};

async function shutdownAll() {
  const problems = [];
  for (const client of clients) {
    try {
      // NotifyClientTermination to the proxy, then the telemetry streams and channels close.
      await within(SHUTDOWN_MS, `${client.constructor.name} shutdown`, client.shutdown());
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
