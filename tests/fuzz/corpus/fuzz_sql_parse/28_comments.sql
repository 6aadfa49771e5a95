/* head */ SELECT -- line
 a /* mid */ FROM t; -- tail