package io.distlock.engine;

/**
 * The parts of one client, as an acquire call and a lock handle reach them: what they read
 * ({@link ClientState}), whom they tell ({@link Events}), the driver's calls ({@link DriverCalls}),
 * the lease table ({@link Leases}), how acquirers wait ({@link Waiting}) and the owner tokens. Each
 * part is called directly — none calls back through the client.
 */
record Parts(ClientState state, Events events, DriverCalls calls, Leases leases, Waiting waiting, OwnerTokens tokens) {
}
