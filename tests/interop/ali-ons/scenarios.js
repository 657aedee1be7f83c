// Interop scenarios run by tests/integration/ali_ons_interop_test.cpp against a live
// mqnamesrv + mqbroker. Usage: node scenarios.js <scenario> <namesrv host:port> <topic> <group>
// [<accessKey> <secretKey>] (the acl scenario, against a broker with acl_enable).
// Exits 0 when the scenario holds, 1 (with the reason on stderr) otherwise; bounded in time.
'use strict';

const { Producer, Consumer, Message } = require('ali-ons');

const [scenario, nameSrv, topic, group, accessKeyId, accessKeySecret] = process.argv.slice(2);
const httpclient = {};  // only used for Aliyun's address server, which nameSrv bypasses
const quiet = { info() {}, warn() {}, debug() {}, error: (...a) => console.error(...a) };
let instance = 0;

// Route polls every second: the %RETRY% topic's route appears after the first heartbeat.
const fast = { pollNameServerInteval: 1000, heartbeatBrokerInterval: 1000, persistConsumerOffsetInterval: 1000 };
const errors = [];
function producer(options = {}) {
  const p = new Producer(Object.assign({ httpclient, nameSrv, producerGroup: `${group}_P`, instanceName: `p${++instance}`, logger: quiet }, fast, options));
  p.on('error', err => errors.push(err));
  return p;
}
function consumer(options = {}) {
  const c = new Consumer(Object.assign({
    httpclient, nameSrv, consumerGroup: group, instanceName: `c${++instance}`,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', rebalanceInterval: 1000, logger: quiet,
  }, fast, options));
  // Before the first heartbeat the %RETRY% topic has no route yet: the client reports that and
  // retries on its next poll, as against a stock broker.
  c.on('error', err => errors.push(err));
  return c;
}
const sleep = ms => new Promise(r => setTimeout(r, ms));
async function until(what, predicate, ms = 30000) {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}
async function sendAll(p, n, tag, prefix) {
  const ids = [];
  for (let i = 0; i < n; i++) {
    const msg = new Message(topic, tag, `${prefix}-${i}`);
    msg.keys = [`${prefix}-key-${i}`];
    const r = await p.send(msg);
    if (r.sendStatus !== 'SEND_OK') throw new Error(`send ${i}: ${JSON.stringify(r)}`);
    ids.push(r.msgId);
  }
  return ids;
}

const scenarios = {
  // Tags filter on the broker, keys and bodies survive the round trip.
  async basic() {
    const p = producer();
    await p.ready();
    await sendAll(p, 5, 'TagA', 'a');
    await sendAll(p, 5, 'TagB', 'b');
    const got = [];
    const c = consumer();
    c.subscribe(topic, 'TagA', async msg => {
      if (msg.tags !== 'TagA') throw new Error(`tag filter let ${msg.tags} through`);
      got.push(`${msg.body.toString()}|${msg.keys}`);
    });
    await c.ready();
    await until('5 TagA messages', () => got.length >= 5);
    await sleep(500);
    if (got.length !== 5) throw new Error(`expected 5 messages, got ${got.length}: ${got}`);
    for (let i = 0; i < 5; i++) if (!got.includes(`a-${i}|a-key-${i}`)) throw new Error(`missing a-${i}: ${got}`);
    await c.close();
    await p.close();
  },

  // Two consumers in one group share the queues: every message is consumed exactly once.
  async clustering() {
    const p = producer();
    await p.ready();
    const counts = new Map();
    const seenBy = [new Set(), new Set()];
    const consumers = [consumer(), consumer()];
    consumers.forEach((c, i) => c.subscribe(topic, '*', async msg => {
      const body = msg.body.toString();
      counts.set(body, (counts.get(body) || 0) + 1);
      seenBy[i].add(body);
    }));
    await Promise.all(consumers.map(c => c.ready()));
    await sleep(3000);  // both members rebalanced
    await sendAll(p, 40, 'T', 'm');
    await until('40 distinct messages', () => counts.size >= 40);
    await sleep(1000);
    const dup = [...counts].filter(([, n]) => n > 1);
    if (dup.length) throw new Error(`consumed more than once: ${JSON.stringify(dup)}`);
    if (seenBy[0].size === 0 || seenBy[1].size === 0) throw new Error(`one consumer got nothing: ${seenBy[0].size}/${seenBy[1].size}`);
    await Promise.all(consumers.map(c => c.close()));
    await p.close();
  },

  // Broadcasting: every consumer receives every message.
  async broadcasting() {
    const p = producer();
    await p.ready();
    const got = [new Set(), new Set()];
    const consumers = [0, 1].map(() => consumer({ isBroadcast: true, consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET' }));
    consumers.forEach((c, i) => c.subscribe(topic, '*', async msg => { got[i].add(msg.body.toString()); }));
    await Promise.all(consumers.map(c => c.ready()));
    await sleep(2000);
    await sendAll(p, 10, 'T', 'b');
    await until('both consumers to get 10', () => got[0].size >= 10 && got[1].size >= 10);
    await Promise.all(consumers.map(c => c.close()));
    await p.close();
  },

  // A failed consume comes back through %RETRY%<group> with the original topic.
  async redelivery() {
    const p = producer();
    await p.ready();
    const attempts = [];
    const c = consumer();
    c.subscribe(topic, '*', async msg => {
      attempts.push({ topic: msg.topic, reconsumeTimes: msg.reconsumeTimes, body: msg.body.toString() });
      if (attempts.length === 1) throw new Error('fail the first attempt on purpose');
    });
    await c.ready();
    await sendAll(p, 1, 'T', 'r');
    await until('a redelivery', () => attempts.length >= 2, 60000);
    const [first, second] = attempts;
    if (second.body !== first.body) throw new Error(`redelivered another message: ${JSON.stringify(attempts)}`);
    if (second.topic !== topic) throw new Error(`redelivered with topic ${second.topic}`);
    if (second.reconsumeTimes !== 1) throw new Error(`reconsumeTimes ${second.reconsumeTimes}`);
    await c.close();
    await p.close();
  },

  // Plain ACL: ali-ons signs with accessKeyId/accessKeySecret (HmacSHA1 over the sorted header
  // values and the body, as RocketMQ's AclClientRPCHook, plus its OnsChannel field); the broker
  // checks it. A wrong secret is refused (ali-ons retries SYSTEM_ERROR, then reports the send failed).
  async acl() {
    const keys = { accessKeyId, accessKeySecret };
    const p = producer(keys);
    await p.ready();
    await sendAll(p, 5, 'TagA', 'acl');
    const got = new Set();
    const c = consumer(keys);
    c.subscribe(topic, '*', async msg => { got.add(msg.body.toString()); });
    await c.ready();
    await until('5 signed messages', () => got.size >= 5);
    const wrong = producer({ accessKeyId, accessKeySecret: 'not-the-secret' });
    await wrong.ready();
    let refused = null;
    try {
      await wrong.send(new Message(topic, 'TagA', 'never stored'));
    } catch (err) {
      refused = err;
    }
    if (!refused) throw new Error('a send signed with a wrong secret was accepted');
    await wrong.close().catch(() => {});  // its UNREGISTER_CLIENT is refused as well
    await c.close();
    await p.close();
  },

  // Offsets committed by one consumer are where the next one of the group starts.
  async resume() {
    const p = producer();
    await p.ready();
    await sendAll(p, 10, 'T', 'first');
    const first = new Set();
    const c1 = consumer();
    c1.subscribe(topic, '*', async msg => { first.add(msg.body.toString()); });
    await c1.ready();
    await until('the first 10', () => first.size >= 10);
    await sleep(1500);
    await c1.close();  // persists offsets
    await sendAll(p, 5, 'T', 'second');
    const second = [];
    const c2 = consumer();
    c2.subscribe(topic, '*', async msg => { second.push(msg.body.toString()); });
    await c2.ready();
    await until('the next 5', () => second.length >= 5);
    await sleep(1000);
    const old = second.filter(b => b.startsWith('first'));
    if (old.length) throw new Error(`consumed again after restart: ${old}`);
    await c2.close();
    await p.close();
  },
};

const run = scenarios[scenario];
if (!run) {
  console.error(`unknown scenario ${scenario}; known: ${Object.keys(scenarios).join(', ')}`);
  process.exit(2);
}
const timer = setTimeout(() => { console.error(`scenario ${scenario} took longer than 120 s`); process.exit(1); }, 120000);
run().then(() => { clearTimeout(timer); console.log(`scenario ${scenario} passed`); process.exit(0); },
  err => { console.error(`scenario ${scenario} failed: ${err.stack || err}`); process.exit(1); });
