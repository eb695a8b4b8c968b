#pragma once
// T_switch of the analytical model on this machine: what one suspend and
// resume through the interleaved scheduler costs when the data is cached.
// Measured once per process (a few microseconds) and then remembered.

namespace weave {

double switch_cost_ns();

}  // namespace weave
