# Send path: SEND_MESSAGE / V2 / batch, consumer send-back (retry, DLQ), delayed messages.
set(MQKIT_BROKER_SEND_SOURCES)
set(MQKIT_BROKER_SEND_TESTS)
