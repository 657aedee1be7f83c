# Consume path: pull + long polling, heartbeats, consumer offsets, locks, queries, admin.
set(MQKIT_BROKER_CONSUME_SOURCES
  src/consume/header_reader.cpp
  src/consume/pull_message_processor.cpp
  src/consume/client_manage_processor.cpp
  src/consume/consumer_manage_processor.cpp
  src/consume/query_message_processor.cpp
  src/consume/admin_bodies.cpp
  src/consume/queue_stats.cpp
  src/consume/reset_offset.cpp
  src/consume/admin_broker_processor.cpp)
set(MQKIT_BROKER_CONSUME_TESTS
  src/consume/consume_test_support.cpp
  src/consume/pull_message_processor_test.cpp
  src/consume/client_manage_processor_test.cpp
  src/consume/consumer_manage_processor_test.cpp
  src/consume/query_message_processor_test.cpp
  src/consume/admin_broker_processor_test.cpp)
