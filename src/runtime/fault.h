/* Test hooks: fault-injection points of the durable runtime. A point does nothing
 * unless the environment variable WEIR_FAULT names it as `POINT:N` or
 * `POINT:N:TERM`; then the N-th time the run reaches that point (counting from 1)
 * the process sends itself SIGKILL, as a power cut would at that moment (with TERM:
 * SIGTERM, a graceful stop requested right then). Points:
 *   checkpoint-commit     a checkpoint is written but its transaction not committed
 *   checkpoint-committed  a checkpoint is committed, none of its deliveries made
 *   delivery              a sink's delivery is half made: its first changes are written
 * The suite's kill test (tests/scripts/kafka_kill.sh) uses them to crash inside the
 * windows that random signals rarely hit. */
#ifndef WEIR_RUNTIME_FAULT_H
#define WEIR_RUNTIME_FAULT_H

/* Reaching `point`: signals the process when WEIR_FAULT says this is the time. */
void run_fault_point(const char *point);

#endif
