FROM maven:3-eclipse-temurin-21
ENV JAVA_OPTS "-Xmx512m -XX:+UseParallelGC"
RUN mvn -q package
CMD java $JAVA_OPTS -jar target/app.jar
