# Consume path: pull + long polling, heartbeats, consumer offsets, locks, queries, admin.
set(MQKIT_BROKER_CONSUME_SOURCES)
set(MQKIT_BROKER_CONSUME_TESTS)
