/** lock-fenced-jdbc alone on the module path, with a backend that has fencing tokens and a JDBC driver. */
module example.fenced {
    requires io.distlock.fenced.jdbc;
}
