# Send path: SEND_MESSAGE / V2 / batch, request-reply replies, consumer send-back (retry, DLQ), delayed and timer messages,
# transactions (half messages, END_TRANSACTION, checks).
set(MQKIT_BROKER_SEND_SOURCES
  src/send/outgoing_message.cpp
  src/send/send_request_headers.cpp
  src/send/send_checks.cpp
  src/send/send_request.cpp
  src/send/append_messages.cpp
  src/send/send_response.cpp
  src/send/send_message_processor.cpp
  src/send/reply_message_processor.cpp
  src/send/consumer_send_back.cpp
  src/send/delivery_support.cpp
  src/send/schedule_message_service.cpp
  src/send/timer_message_service.cpp
  src/send/transaction_service.cpp
  src/send/end_transaction_processor.cpp)
set(MQKIT_BROKER_SEND_TESTS
  src/send/send_test_support.cpp
  src/send/send_request_headers_test.cpp
  src/send/send_message_processor_test.cpp
  src/send/send_batch_test.cpp
  src/send/reply_message_processor_test.cpp
  src/send/consumer_send_back_test.cpp
  src/send/schedule_message_service_test.cpp
  src/send/timer_message_service_test.cpp
  src/send/transaction_service_test.cpp)
