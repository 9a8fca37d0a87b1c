/** lock-micrometer alone on the module path, with the backend it reports on. */
module example.micrometer {
    requires io.distlock.micrometer;
}
